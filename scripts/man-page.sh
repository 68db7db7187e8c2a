#!/usr/bin/env bash
# Prints the man page turnstiled(8), in groff, generated from a built binary's --help:
#     scripts/man-page.sh .build/release/turnstiled > turnstiled.8
# The commands come from the binary itself (the SUBCOMMANDS section of each --help, followed
# down to nested commands such as `ctl status`), so a new command is in the page without an
# edit here. The exit statuses every command repeats are printed once. scripts/package-deb.sh
# installs the page as /usr/share/man/man8/turnstiled.8.gz.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -x "$1" ]; then echo "usage: $0 PATH-TO-turnstiled" >&2; exit 2; fi
BINARY=$1

# The command names listed under SUBCOMMANDS: in a --help text (two spaces, then the name).
subcommands() {
    awk '/^SUBCOMMANDS:/ { on = 1; next }
         on && /^$/ { exit }
         on && /^  [a-z]/ { print $1 }'
}

# The help text as groff no-fill text: backslashes and hyphens escaped, control characters at
# the start of a line neutralised, and (for commands) the shared exit-status block dropped.
verbatim() {
    DROP=$1 awk -v q="'" '
        BEGIN { n = split(ENVIRON["DROP"], block, "\n") }
        { lines[NR] = $0 }
        END {
            i = 1
            while (i <= NR) {
                if (n > 1 && lines[i] == block[1]) {
                    same = 1
                    for (k = 2; k <= n; k++) if (lines[i + k - 1] != block[k]) { same = 0; break }
                    if (same) { i += n; continue }
                }
                line = lines[i++]
                gsub(/\\/, "\\e", line)
                gsub(/-/, "\\-", line)
                if (substr(line, 1, 1) == "." || substr(line, 1, 1) == q) line = "\\&" line
                print line
            }
        }'
}

root_help=$("$BINARY" --help)
version=$("$BINARY" --version)
abstract=$(printf '%s\n' "$root_help" | sed -n 's/^OVERVIEW: //p' | sed -n 1p)
abstract=${abstract%.}
# The exit statuses: from "Exit status:" to the blank line after it.
exit_block=$(printf '%s\n' "$root_help" | awk '/^Exit status:/ { on = 1 } on && /^$/ { exit } on')
# A reproducible date: the source's last commit, else today.
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%Y-%m-%d)

cat <<EOF
.TH TURNSTILED 8 "$date" "turnstiled $version" "System Administration"
.SH NAME
turnstiled \\- ${abstract,}
.SH SYNOPSIS
.B turnstiled
.I command
.RI [ options ]
.SH DESCRIPTION
.nf
EOF
printf '%s\n' "$root_help" | verbatim ""
echo ".fi"
echo ".SH COMMANDS"

# Each command's --help, depth first, so `ctl` comes before `ctl status`.
describe() {
    local name text sub
    for name in "$@"; do
        # shellcheck disable=SC2086 # the command path is words on purpose
        text=$("$BINARY" $name --help)
        echo ".SS \"turnstiled ${name//-/\\-}\""
        echo ".nf"
        printf '%s\n' "$text" | verbatim "$exit_block"
        echo ".fi"
        local subs=()
        while IFS= read -r sub; do subs+=("$name $sub"); done < <(printf '%s\n' "$text" | subcommands)
        [ ${#subs[@]} -eq 0 ] || describe "${subs[@]}"
    done
}
mapfile -t commands < <(printf '%s\n' "$root_help" | subcommands)
[ ${#commands[@]} -gt 0 ] || { echo "$0: $BINARY --help lists no SUBCOMMANDS" >&2; exit 1; }
describe "${commands[@]}"

cat <<'EOF'
.SH FILES
.TP
.I /etc/turnstiled/board.toml
The board the service runs: the simulated turnstile until replaced by one of
.IR /usr/share/turnstiled/boards/*.toml ;
check it with \fBturnstiled check \-\-board\fR \fIFILE\fR.
.TP
.I /var/lib/turnstiled/counts.sqlite
The count database. Kept when the package is purged, unless
.B TURNSTILED_PURGE_DATABASE=1
is set.
.TP
.I /run/turnstiled/control.sock
The control socket, for members of the group \fBturnstiled\fR.
.TP
.I /lib/systemd/system/turnstiled.service
The systemd unit; change it with \fBsystemctl edit turnstiled\fR.
.TP
.I /lib/udev/rules.d/60\-turnstiled\-gpio.rules
Gives the group \fBgpio\fR read-write access to \fI/dev/gpiochip*\fR.
.SH SEE ALSO
.BR systemctl (1),
.BR journalctl (1),
.BR gpiodetect (1),
.I /usr/share/doc/turnstiled/README.md
EOF
