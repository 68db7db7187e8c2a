#!/usr/bin/env bash
# Prints the man page of a controller's daemon (turnstiled(8), barrierd(8), ...), in groff,
# generated from a built binary's --help:
#     scripts/man-page.sh .build/release/turnstiled > turnstiled.8
# The daemon's name is the one its --help gives (USAGE: NAME ...), whatever the file is called;
# the FILES section names the paths its .deb installs. The commands come from the binary itself
# (the SUBCOMMANDS section of each --help, followed down to nested commands such as `ctl
# status`), so a new command is in the page without an edit here. The exit statuses every command repeats are printed once. scripts/package-deb.sh
# installs the page as /usr/share/man/man8/NAME.8.gz.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -x "$1" ]; then echo "usage: $0 PATH-TO-DAEMON (turnstiled, barrierd, ...)" >&2; exit 2; fi
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
daemon=$(printf '%s\n' "$root_help" | sed -n 's/^USAGE: \([a-z][a-z0-9-]*\) .*/\1/p' | sed -n 1p)
[ -n "$daemon" ] || { echo "$0: $BINARY --help has no \"USAGE: NAME ...\" line to take the name from" >&2; exit 1; }
# The name in groff: a hyphen escaped like any other.
gname=${daemon//-/\\-}
# The variable that asks postrm to delete the database too: TURNSTILED_PURGE_DATABASE.
purge_variable=${daemon^^}
purge_variable=${purge_variable//-/_}_PURGE_DATABASE
abstract=$(printf '%s\n' "$root_help" | sed -n 's/^OVERVIEW: //p' | sed -n 1p)
abstract=${abstract%.}
# The exit statuses: from "Exit status:" to the blank line after it.
exit_block=$(printf '%s\n' "$root_help" | awk '/^Exit status:/ { on = 1 } on && /^$/ { on = 0; done = 1 } on && !done')
# A reproducible date: the source's last commit, else today.
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%Y-%m-%d)

cat <<EOF
.TH ${daemon^^} 8 "$date" "$daemon $version" "System Administration"
.SH NAME
$gname \\- ${abstract,}
.SH SYNOPSIS
.B $gname
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
        echo ".SS \"$gname ${name//-/\\-}\""
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

cat <<EOF
.SH FILES
.TP
.I /etc/$gname/board.toml
The board the service runs: the simulated board until replaced by one of
.IR /usr/share/$gname/boards/*.toml ;
check it with \\fB$gname check \\-\\-board\\fR \\fIFILE\\fR.
.TP
.I /var/lib/$gname/counts.sqlite
The count database. Kept when the package is purged, unless
.B $purge_variable=1
is set.
.TP
.I /run/$gname/control.sock
The control socket, for members of the group \\fB$gname\\fR.
.TP
.I /lib/systemd/system/$gname.service
The systemd unit; change it with \\fBsystemctl edit $gname\\fR.
.TP
.I /lib/udev/rules.d/60\\-$gname\\-gpio.rules
Gives the group \\fBgpio\\fR read-write access to \\fI/dev/gpiochip*\\fR.
.SH SEE ALSO
.BR systemctl (1),
.BR journalctl (1),
.BR gpiodetect (1),
.I /usr/share/doc/$gname/README.md
EOF
