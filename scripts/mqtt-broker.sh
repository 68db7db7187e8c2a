#!/usr/bin/env bash
# A throwaway MQTT broker for tests and for trying the daemon's MQTT client by hand: Debian's
# mosquitto on two free loopback ports, in a directory of its own, with
#   - a password file (mosquitto_passwd) with five users: `node1` and `node2`, controllers, each
#     of which may read and write under its own prefix (nodes/node1/#, nodes/node2/#) and read
#     the site-wide nodes/all/command; `reader`, which may only read nodes/#; `operator`, which
#     reads nodes/# and may publish commands (nodes/+/command); `site`, one account for many
#     simulated controllers, read and write nodes/# (the ACL file);
#   - plain MQTT on one port and TLS on the other, with a CA, a server certificate (localhost,
#     127.0.0.1, ::1) and a client certificate for node1 that this script makes with openssl;
#     the TLS port requires a client certificate signed by that CA (and the password as well);
#   - a second, unrelated CA (other-ca.crt), for checking that a wrong CA is refused;
#   - one file per password (USER.password, and wrong.password): the client
#     reads its password from a file; persistence in DIR (sessions outlive a pause).
#
# usage: scripts/mqtt-broker.sh start [DIR]   start a broker; DIR defaults to a new temp dir
#        scripts/mqtt-broker.sh stop DIR      stop it (SIGTERM, then SIGKILL after 5 s) and,
#                                             if start made DIR, remove it
#        scripts/mqtt-broker.sh pause DIR     stop it, keeping DIR (a broker outage)
#        scripts/mqtt-broker.sh resume DIR    start it again on the same ports, with the
#                                             sessions and queued messages it saved
# `start` prints KEY=VALUE lines (eval-able) and nothing else on stdout:
#   MQTT_BROKER_DIR  MQTT_BROKER_PID  MQTT_PLAIN_PORT  MQTT_TLS_PORT
# Everything else (certificates, the users' files, mosquitto.conf, mosquitto.log) is in DIR.
#
# Needs mosquitto, mosquitto_passwd and openssl (apt-get install mosquitto openssl). Installing
# Debian's mosquitto on a machine without systemd starts no broker (invoke-rc.d's policy refuses
# it); on one with systemd, `systemctl disable --now mosquitto` stops the one on 1883. This script
# never uses 1883 or 8883: its ports are free ones above 20000, picked at random and checked.
# The broker inherits the caller's signal mask: a caller that blocks SIGTERM (a test runner's
# thread) must unblock it for the child, or `stop` has to fall back on SIGKILL after 5 s.
set -euo pipefail

die() { echo "mqtt-broker.sh: $*" >&2; exit 1; }

# How long to wait for the broker to listen, and for it to go after SIGTERM (tenths of a second).
readonly START_WAIT_TENTHS=100
readonly STOP_WAIT_TENTHS=50
# Ports are drawn from this range; a start whose ports were taken meanwhile is tried again.
readonly PORT_LOW=20000
readonly PORT_HIGH=59999
readonly START_ATTEMPTS=5
# Certificates live two days: long enough for any test run, short if a directory is left behind.
readonly CERT_DAYS=2

# start_daemon DIR COMMAND...: runs the daemonising COMMAND with nothing of ours open but its
# standard streams, which go nowhere (errors to DIR/mosquitto.stderr). Ours must not stay open in
# the daemon: a caller reading our output to its end would wait for the broker. Nor may anything
# else we inherited: a test process that starts two of these scripts at once gives each the
# other's pipes (its process library does not close them in the child), and a broker holding
# one kept that other script's caller waiting, for as long as the broker ran.
start_daemon() {
    local dir=$1
    shift
    (
        for fd in /proc/self/fd/*; do
            fd=${fd##*/}
            if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
        done
        exec "$@"
    ) </dev/null >/dev/null 2>>"$dir/mosquitto.stderr" || true
}

port_in_use() { ss -Hltn "sport = :$1" | grep . >/dev/null; }

# Whether process $1 runs: a zombie does not (the daemonised broker's parent is PID 1, which in a
# container may be slow to reap it, and `kill -0` succeeds on a zombie).
alive() {
    kill -0 "$1" 2>/dev/null || return 1
    local state
    state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null || echo Z)
    [ "$state" != Z ]
}

free_port() {
    local port
    for _ in $(seq 1 100); do
        port=$(( PORT_LOW + (RANDOM * 32768 + RANDOM) % (PORT_HIGH - PORT_LOW + 1) ))
        if ! port_in_use "$port"; then echo "$port"; return 0; fi
    done
    die "no free port in $PORT_LOW-$PORT_HIGH after 100 tries"
}

make_certificates() {
    local dir=$1
    local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    (
        cd "$dir"
        openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.crt -days "$CERT_DAYS" \
            -subj "/CN=ControllerFSM test CA" \
            -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
        openssl req -x509 "${ec[@]}" -keyout other-ca.key -out other-ca.crt -days "$CERT_DAYS" \
            -subj "/CN=Some other CA" \
            -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
        openssl req "${ec[@]}" -keyout server.key -out server.csr -subj "/CN=localhost"
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n' >server.ext
        openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days "$CERT_DAYS" \
            -extfile server.ext -out server.crt
        openssl req "${ec[@]}" -keyout node1.key -out node1.csr -subj "/CN=node1"
        printf 'extendedKeyUsage=clientAuth\n' >client.ext
        openssl x509 -req -in node1.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days "$CERT_DAYS" \
            -extfile client.ext -out node1.crt
        rm -f ./*.csr ./*.ext ca.srl
        chmod 600 ./*.key
    ) >/dev/null 2>"$dir/openssl.log" || die "openssl could not make the certificates: $(cat "$dir/openssl.log")"
}

make_users() {
    local dir=$1
    local user password
    rm -f "$dir/passwd"
    touch "$dir/passwd"
    for user in node1 node2 reader operator site; do
        password=$(openssl rand -hex 16)
        # The files end in a newline, as an editor or `echo` leaves them: the client must cope.
        printf '%s\n' "$password" >"$dir/$user.password"
        mosquitto_passwd -b "$dir/passwd" "$user" "$password" >/dev/null
    done
    printf '%s\n' "not-$(head -n 1 "$dir/node1.password")" >"$dir/wrong.password"
    chmod 600 "$dir"/*.password "$dir/passwd"
    cat >"$dir/acl" <<'EOF'
# node1 and node2 are controllers: each its own prefix, read and write.
# Each also hears the site-wide command topic and Home Assistant's birth message, and
# announces itself to Home Assistant (discovery: the node's level there is its prefix and id,
# escaped, so nodes/node1 is nodes_2fnode1). nodes/NODE/# holds its claim on the id too.
user node1
topic readwrite nodes/node1/#
topic read nodes/all/command
topic write homeassistant/+/nodes_2fnode1/#
topic read homeassistant/status

user node2
topic readwrite nodes/node2/#
topic read nodes/all/command
topic write homeassistant/+/nodes_2fnode2/#
topic read homeassistant/status

# reader is a dashboard: every node's topics and discovery messages, read only.
user reader
topic read nodes/#
topic read homeassistant/#

# operator is the site's panel: reads every node, sends commands to one or all.
user operator
topic read nodes/#
topic write nodes/+/command

# site is one account shared by many simulated controllers (the site test); it also stands in
# for Home Assistant (its birth message).
user site
topic readwrite nodes/#
topic readwrite homeassistant/#
EOF
}

write_config() {
    local dir=$1 plain=$2 tls=$3
    cat >"$dir/mosquitto.conf" <<EOF
# Written by scripts/mqtt-broker.sh.
per_listener_settings false
allow_anonymous false
password_file $dir/passwd
acl_file $dir/acl
# Sessions and queued messages survive a pause (saved at SIGTERM), as a site's broker keeps them.
persistence true
persistence_location $dir/
pid_file $dir/mosquitto.pid
# Run as whoever starts it: as root, mosquitto would otherwise become the "mosquitto" user, which
# cannot read this directory.
user $(id -un)
log_dest file $dir/mosquitto.log
log_type error
log_type warning
log_type notice
log_type information
connection_messages true
log_timestamp_format %H:%M:%S

listener $plain 127.0.0.1

listener $tls 127.0.0.1
cafile $dir/ca.crt
certfile $dir/server.crt
keyfile $dir/server.key
require_certificate true
EOF
}

start() {
    local dir=${1:-}
    local made=0
    for tool in mosquitto mosquitto_passwd openssl ss; do
        command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] \
            || die "$tool is not installed (sudo apt-get install -y mosquitto openssl iproute2)"
    done
    local mosquitto
    mosquitto=$(command -v mosquitto || echo /usr/sbin/mosquitto)
    if [ -z "$dir" ]; then
        dir=$(mktemp -d --tmpdir mqtt-broker-XXXXXX)
        made=1
    else
        mkdir -p "$dir"
    fi
    dir=$(cd "$dir" && pwd)
    chmod 700 "$dir"
    [ "$made" = 1 ] && touch "$dir/.made-by-mqtt-broker"
    make_certificates "$dir"
    make_users "$dir"

    local attempt plain tls pid=""
    for attempt in $(seq 1 "$START_ATTEMPTS"); do
        plain=$(free_port)
        tls=$(free_port)
        [ "$plain" = "$tls" ] && continue
        write_config "$dir" "$plain" "$tls"
        rm -f "$dir/mosquitto.pid"
        start_daemon "$dir" "$mosquitto" -c "$dir/mosquitto.conf" -d
        for _ in $(seq 1 "$START_WAIT_TENTHS"); do
            pid=$(cat "$dir/mosquitto.pid" 2>/dev/null || true)
            if [ -n "$pid" ] && ! alive "$pid"; then pid=""; break; fi
            if [ -n "$pid" ] && port_in_use "$plain" && port_in_use "$tls"; then break 2; fi
            sleep 0.1
        done
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
        pid=""
        echo "mqtt-broker.sh: attempt $attempt on ports $plain/$tls failed; trying others" >&2
    done
    [ -n "$pid" ] || die "mosquitto did not start; see $dir/mosquitto.log and $dir/mosquitto.stderr: $(tail -n 5 "$dir/mosquitto.log" "$dir/mosquitto.stderr" 2>/dev/null)"
    echo "MQTT_BROKER_DIR=$dir"
    echo "MQTT_BROKER_PID=$pid"
    echo "MQTT_PLAIN_PORT=$plain"
    echo "MQTT_TLS_PORT=$tls"
}

# Ends the broker (SIGTERM: it saves its sessions and queued messages) and keeps DIR.
pause() {
    local dir=${1:-}
    [ -n "$dir" ] && [ -f "$dir/mosquitto.conf" ] || die "usage: $0 pause DIR (the MQTT_BROKER_DIR start printed)"
    end_broker "$dir"
}

# Starts the paused broker again on the same ports, with the sessions and messages it saved.
resume() {
    local dir=${1:-}
    [ -n "$dir" ] && [ -f "$dir/mosquitto.conf" ] || die "usage: $0 resume DIR (the MQTT_BROKER_DIR start printed)"
    local mosquitto plain tls pid=""
    mosquitto=$(command -v mosquitto || echo /usr/sbin/mosquitto)
    plain=$(sed -n 's/^listener \([0-9]*\) 127.0.0.1$/\1/p' "$dir/mosquitto.conf" | sed -n 1p)
    tls=$(sed -n 's/^listener \([0-9]*\) 127.0.0.1$/\1/p' "$dir/mosquitto.conf" | sed -n 2p)
    [ -n "$plain" ] && [ -n "$tls" ] || die "$dir/mosquitto.conf names no loopback listeners"
    local attempt
    # The ports were ours a moment ago; another process may take one meanwhile (rare).
    for attempt in $(seq 1 "$START_ATTEMPTS"); do
        rm -f "$dir/mosquitto.pid"
        start_daemon "$dir" "$mosquitto" -c "$dir/mosquitto.conf" -d
        for _ in $(seq 1 "$START_WAIT_TENTHS"); do
            pid=$(cat "$dir/mosquitto.pid" 2>/dev/null || true)
            if [ -n "$pid" ] && ! alive "$pid"; then pid=""; break; fi
            if [ -n "$pid" ] && port_in_use "$plain" && port_in_use "$tls"; then break 2; fi
            sleep 0.1
        done
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
        pid=""
        sleep 0.5
    done
    [ -n "$pid" ] || die "mosquitto did not start again on ports $plain/$tls; see $dir/mosquitto.log: $(tail -n 5 "$dir/mosquitto.log" "$dir/mosquitto.stderr" 2>/dev/null)"
    echo "MQTT_BROKER_PID=$pid"
}

end_broker() {
    local dir=$1 pid
    pid=$(cat "$dir/mosquitto.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && alive "$pid"; then
        kill -TERM "$pid"
        for _ in $(seq 1 "$STOP_WAIT_TENTHS"); do
            alive "$pid" || break
            sleep 0.1
        done
        if alive "$pid"; then
            echo "mqtt-broker.sh: mosquitto $pid ignored SIGTERM; killing it" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
}

stop() {
    local dir=${1:-}
    [ -n "$dir" ] && [ -d "$dir" ] || die "usage: $0 stop DIR (the MQTT_BROKER_DIR start printed)"
    end_broker "$dir"
    if [ -f "$dir/.made-by-mqtt-broker" ]; then rm -rf "$dir"; fi
}

case "${1:-}" in
    start) shift; start "$@" ;;
    stop) shift; stop "$@" ;;
    pause) shift; pause "$@" ;;
    resume) shift; resume "$@" ;;
    *) echo "usage: $0 start [DIR] | stop DIR | pause DIR | resume DIR" >&2; exit 2 ;;
esac
