#!/usr/bin/env bash
# Runs every command of deploy/README.md's code blocks (the binary side: no container runtime
# or systemd needed) in a temporary directory, and the Containerfile's CMD and HEALTHCHECK;
# fails loudly on any difference, and on a documented command it has no check for.
# Run as root, the service user is played by `nobody` (setpriv), as `sudo -u referee` would.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --locked --quiet
BIN="$(realpath "${CARGO_TARGET_DIR:-target}")/debug/referee"
README=deploy/README.md
T="$(mktemp -d)"
chmod 755 "$T"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "check-readme: FAILED: $*" >&2; exit 1; }
step() { echo "check-readme: $*" >&2; }

if [[ $(id -u) -eq 0 ]] && command -v setpriv >/dev/null; then
  AS_SERVICE=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  SERVICE_UID=65534
else
  AS_SERVICE=()
  SERVICE_UID=$(id -u)
fi

# Absolute paths of the README moved under $T.
moved() { sed -e "s#/etc/referee/tls#$T/etc/referee/tls#g" -e "s#/var/lib/referee#$T/var/lib/referee#g" <<<"$1"; }

# A directory of the service user's, as the volume or StateDirectory gives it.
service_dir() { install -d -m 700 "$1"; [[ $SERVICE_UID == "$(id -u)" ]] || chown "$SERVICE_UID:$SERVICE_UID" "$1"; }

# Starts `serve ARGS...` as the service user, and sets PORT from the line it prints.
start() {
  local out="$T/serve-$RANDOM.out"
  "${AS_SERVICE[@]}" "$BIN" "$@" >"$out" 2>"$out.err" &
  PIDS+=($!)
  for _ in $(seq 100); do
    if grep -q 'referee listening on' "$out"; then
      PORT=$(sed -n 's/.*referee listening on .*:\([0-9]*\)$/\1/p' "$out"); return 0
    fi
    kill -0 "${PIDS[-1]}" 2>/dev/null || fail "serve $* exited: $(cat "$out.err")"
    sleep 0.1
  done
  fail "serve $* did not start: $(cat "$out.err")"
}

# `referee health` must answer SERVING.
healthy() {
  local said
  said=$("$BIN" "$@") || fail "health $*: exit $?"
  [[ $said == SERVING ]] || fail "health $*: said $said"
  step "ok: health $* -> SERVING"
}

# Every command of the README, in order.
mapfile -t COMMANDS < <(sed -n 's/^    //p' "$README")
((${#COMMANDS[@]} >= 10)) || fail "found only ${#COMMANDS[@]} commands in $README"
for cmd in "${COMMANDS[@]}"; do
  step "\$ $cmd"
  line=$(moved "$cmd")
  case "$cmd" in
    "mkdir -p /etc/referee/tls && cd /etc/referee/tls")
      eval "$line"; cd - >/dev/null; TLS="$T/etc/referee/tls" ;;
    "openssl req "*)
      (cd "$TLS" && eval "$line" 2>/dev/null) || fail "openssl"
      [[ -s $TLS/cert.pem && -s $TLS/key.pem ]] || fail "no cert.pem/key.pem"
      # The README's `chgrp referee key.pem && chmod 640` (systemd) / `chown 10001` (container).
      [[ $SERVICE_UID == "$(id -u)" ]] || chown "$SERVICE_UID" "$TLS/key.pem" ;;
    "useradd "*)
      step "(the service user is uid $SERVICE_UID here)" ;;
    "install -d -o referee -g referee -m 700 /var/lib/referee")
      service_dir "$T/var/lib/referee" ;;
    "sudo -u referee referee token issue "*)
      read -ra args <<<"${line#sudo -u referee referee }"
      secret=$("${AS_SERVICE[@]}" "$BIN" "${args[@]}") || fail "token issue as the service user"
      [[ $secret == rt_arb-1_* ]] || fail "token issue printed $secret"
      owner=$(stat -c %u "$T/var/lib/referee/data/tokens.jsonl")
      [[ $owner == "$SERVICE_UID" ]] || fail "tokens.jsonl belongs to uid $owner" ;;
    "sudo -u referee referee token list "*)
      read -ra args <<<"${line#sudo -u referee referee }"
      listed=$("${AS_SERVICE[@]}" "$BIN" "${args[@]}") || fail "token list"
      grep -qE '^arb-1 +arbiter +games 2026-ch-\* +- +active$' <<<"$listed" || fail "list: $listed" ;;
    "referee serve --addr 0.0.0.0:50051 "*)
      read -ra args <<<"${line#referee }"
      # Without TLS the same line must be refused (exit 2), as the README says.
      set +e; "$BIN" serve --addr 0.0.0.0:0 --data "$T/refused" >/dev/null 2>&1; code=$?; set -e
      [[ $code == 2 ]] || fail "serve on 0.0.0.0 without TLS: exit $code, not 2"
      start "${args[@]/0.0.0.0:50051/0.0.0.0:0}"; UNIT_PORT=$PORT
      # The token issued above (as the service user) is what the server reads.
      grep -q 'access control is on' "$T"/serve-*.out* || fail "server did not read the token" ;;
    "referee health --addr 127.0.0.1:50051 "*)
      read -ra args <<<"${line#referee }"
      healthy "${args[@]/127.0.0.1:50051/127.0.0.1:$UNIT_PORT}" ;;
    "podman build "*)
      for dir in target referee-data; do
        grep -qx "/$dir" .containerignore || fail ".containerignore does not leave out $dir"
      done
      cmp -s .containerignore .dockerignore || fail ".dockerignore differs from .containerignore" ;;
    "podman run -d --name referee -p 50051:50051 "*)
      # The image's CMD (the mounts give it /etc/referee/tls) and its HEALTHCHECK.
      mapfile -t args < <(sed -n 's/^CMD \[\(.*\)\]$/\1/p' deploy/Containerfile | tr -d '"' | tr ',' '\n' | sed 's/^ *//')
      [[ ${args[0]} == serve ]] || fail "Containerfile CMD: ${args[*]}"
      for i in "${!args[@]}"; do args[i]=$(moved "${args[i]}"); done
      args=("${args[@]/0.0.0.0:50051/0.0.0.0:0}")
      args=("${args[@]/$T\/var\/lib\/referee\/data/$T/container/data}")
      service_dir "$T/container"
      start "${args[@]}"
      check=$(sed -n 's/.*"-c", "exec \/usr\/local\/bin\/referee \(.*\)"\]$/\1/p' deploy/Containerfile | sed 's/\\"/"/g')
      [[ -n $check ]] || fail "no HEALTHCHECK found in the Containerfile"
      check=$(moved "$check"); check=${check/127.0.0.1:50051/127.0.0.1:$PORT}
      REFEREE_TLS_DOMAIN=$(sed -n 's/^ENV REFEREE_TLS_DOMAIN=//p' deploy/Containerfile)
      eval "set -- $check"; healthy "$@"
      CONTAINER_DATA="$T/container/data" ;;
    "podman exec referee referee token issue "*)
      read -ra args <<<"${line#podman exec referee referee }"
      args=("${args[@]/$T\/var\/lib\/referee\/data/$CONTAINER_DATA}")
      "${AS_SERVICE[@]}" "$BIN" "${args[@]}" >/dev/null || fail "token issue in the container" ;;
    "podman run -d --name referee -p 127.0.0.1:50051:50051 "*"--insecure")
      serve=${line#* referee serve }
      read -ra args <<<"serve $serve"
      args=("${args[@]/0.0.0.0:50051/0.0.0.0:0}")
      args=("${args[@]/$T\/var\/lib\/referee\/data/$T/proxied/data}")
      service_dir "$T/proxied"
      start "${args[@]}"
      health=$(sed -n 's/.*--health-cmd "referee \([^"]*\)".*/\1/p' <<<"$cmd")
      read -ra args <<<"${health/127.0.0.1:50051/127.0.0.1:$PORT}"
      healthy "${args[@]}" ;;
    *)
      fail "no check for this documented command: $cmd" ;;
  esac
done
step "every command of $README ran as documented"
