#!/usr/bin/env bash
# make demo: a throw-away local desktop (Xvnc with a few windows), a private
# dvvd, one limb, one screenshot — then the next commands to try. Ctrl+C
# cleans everything up. With DEMO_EXIT=1 (or no terminal) it exits at once.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$PWD/bin}
ID=demo-$$
WORK=$(mktemp -d /tmp/dvv-demo.XXXXXX)
PIDS=()

cleanup() {
  trap - EXIT INT TERM
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
  echo "demo: cleaned up"
}
trap cleanup EXIT INT TERM

# A free display and RFB port.
for n in $(seq 40 99); do
  if [ ! -e /tmp/.X11-unix/X$n ] && [ ! -e /tmp/.X$n-lock ] && ! (echo > /dev/tcp/127.0.0.1/$((5900 + n))) 2>/dev/null; then
    DISPLAY_NUM=$n
    break
  fi
done
: "${DISPLAY_NUM:?no free X display between :40 and :99}"
PORT=$((5900 + DISPLAY_NUM))

Xvnc :$DISPLAY_NUM -rfbport $PORT -localhost -nolisten tcp -SecurityTypes None -geometry 1024x768 -depth 24 \
  -AlwaysShared >"$WORK/xvnc.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [ -e /tmp/.X11-unix/X$DISPLAY_NUM ] && break; sleep 0.05; done
export DISPLAY=:$DISPLAY_NUM
xsetroot -solid '#2e4a62'
xterm -geometry 80x20+40+40 -fa 'DejaVu Sans Mono' -fs 11 -title 'dvv demo' \
  -e sh -c 'echo "Hello from a throw-away desktop driven by dvv."; echo; uname -a; echo; exec sh' >/dev/null 2>&1 &
PIDS+=($!)
(command -v xclock >/dev/null && exec xclock -geometry 200x200+780+40 -update 1) >/dev/null 2>&1 &
PIDS+=($!)
(command -v xeyes >/dev/null && exec xeyes -geometry 200x140+780+300) >/dev/null 2>&1 &
PIDS+=($!)
unset DISPLAY

"$BIN/dvvd" --id "$ID" --no-discovery >"$WORK/dvvd.log" 2>&1 &
PIDS+=($!)
export DVV_SOCKET=/tmp/dvv$(id -u)/$ID.sock
for _ in $(seq 100); do "$BIN/dvv" ping >/dev/null 2>&1 && break; sleep 0.05; done

LIMB=$("$BIN/dvv" open "127.0.0.1:$PORT" --protocol vnc --perceive --json | grep -o '"limbId":"[^"]*"' | head -1 | cut -d'"' -f4)
"$BIN/dvv" wait "$LIMB" --until connected --timeout-ms 20000
"$BIN/dvv" wait "$LIMB" --until screen-stable --quiet-ms 500 --timeout-ms 10000 >/dev/null || true
"$BIN/dvv" screen "$LIMB" --out "$PWD/dvv-demo.png"
echo
"$BIN/dvv" status "$LIMB"
cat <<MSG

demo: the screenshot is $PWD/dvv-demo.png
demo: dvvd (instance $ID) holds limb $LIMB on a throw-away Xvnc at 127.0.0.1:$PORT.
Try, in another shell:
  export DVV_SOCKET=$DVV_SOCKET
  $BIN/dvv limbs
  $BIN/dvv screen $LIMB --scale 0.5 --out ./dvv-screen.png
  $BIN/dvv control acquire $LIMB
  $BIN/dvv click $LIMB 300 200          # generation from your last screen read
  $BIN/dvv type $LIMB "echo typed by dvv"
  $BIN/dvv key $LIMB Enter
  $BIN/dvv wait $LIMB --until screen-stable
  $BIN/dvv signals $LIMB
  printf '{"op":"status","limbId":"$LIMB"}\n' | nc -NU \$DVV_SOCKET
MSG
if [ -z "${DEMO_EXIT:-}" ] && [ -t 0 ]; then
  echo "Press Ctrl+C to stop the demo and clean up."
  while true; do sleep 3600; done
fi
