#!/bin/bash
# run-guest-ssh.sh: log in to (or run a command in) the guest that
# scripts/run-blackbox.sh started, through the SSH port it forwards.
#
#   scripts/run-guest-ssh.sh                       # interactive login
#   scripts/run-guest-ssh.sh sudo nvme list        # one command
#   scripts/run-guest-ssh.sh --copy scripts/tutorials \
#       sudo bash tutorials/waf-run.sh AGE=4g MEASURE=4g   # copy, then run
#   (copy the whole directory: the tutorial scripts need its lib.sh)
#   scripts/run-guest-ssh.sh "sudo bash -c 'cd /tmp && ls'"
#   (as with ssh, the command reaches the guest's shell as one line: quote
#   a command that has quotes of its own as a whole)
#
# Environment:
#   SSH_PORT=8080   the port run-blackbox.sh forwards to the guest's port 22
#   GUEST_USER      user name in the guest (default: your user name here)
#   WAIT=300        seconds to wait for the guest's SSH server (it may
#                   still be booting); 0: do not wait
#   SSH_OPTS        extra ssh options, e.g. "-i ~/.ssh/femu_key"
# Options: --copy FILE (repeatable; a directory is copied whole): copy FILE
# into the guest user's home directory first (scp -r).  The guest's host key is not recorded: every boot
# of a VM image is a fresh host as far as this script cares.
set -euo pipefail
ME=run-guest-ssh
SSH_PORT=${SSH_PORT:-8080}
GUEST_USER=${GUEST_USER:-$(id -un)}
WAIT=${WAIT:-300}
COPY=()
while [ $# -gt 0 ]; do
    case $1 in
    --copy) [ $# -ge 2 ] || { echo "$ME: --copy needs a file" >&2; exit 2; }
            [ -e "$2" ] || { echo "$ME: --copy $2: no such file" >&2; exit 2; }
            COPY+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
    esac
done
case $SSH_PORT in ''|*[!0-9]*) echo "$ME: SSH_PORT=$SSH_PORT: not a port number" >&2; exit 2 ;; esac
die() { echo "$ME: $*" >&2; exit 2; }
. "$(dirname "$0")/graft/lib.sh"
femu_need 'cmd:ssh|openssh-client' 'cmd:timeout|coreutils'

# shellcheck disable=SC2206
OPTS=(-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
      -o LogLevel=ERROR -o ConnectTimeout=5 ${SSH_OPTS:-})

# The guest is up when its SSH server answers with a banner.
up() { timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$SSH_PORT && head -c 4 <&3" 2>/dev/null | grep -q SSH; }
if [ "$WAIT" -gt 0 ] && ! up; then
    echo "$ME: waiting up to ${WAIT}s for the guest's SSH server on port $SSH_PORT" >&2
    end=$((SECONDS + WAIT))
    until up; do
        [ $SECONDS -lt $end ] || { echo "$ME: no SSH server on 127.0.0.1:$SSH_PORT after ${WAIT}s" >&2; exit 255; }
        sleep 2
    done
fi
if [ ${#COPY[@]} -gt 0 ]; then
    scp -q -P "$SSH_PORT" "${OPTS[@]}" -r "${COPY[@]}" "$GUEST_USER@127.0.0.1:"
fi
exec ssh -p "$SSH_PORT" "${OPTS[@]}" "$GUEST_USER@127.0.0.1" "$@"
