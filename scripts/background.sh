#!/bin/sh
# background.sh: runs a long suite beside the others in `make test` and collects it at the end,
# so that a suite that mostly waits (the container test: apt downloads, image layers, podman)
# does not add its whole time to the run. Its output goes to a log, shown when it is collected.
#
#   background.sh start NAME CMD [ARGS...]   starts CMD; output in build/bg/NAME.log
#   background.sh wait NAME                  waits for it, prints its output, exits with its status
set -u
dir=build/bg
what=${1:?usage: background.sh start NAME CMD... | wait NAME}
name=${2:?usage: background.sh start NAME CMD... | wait NAME}
case "$what" in
start)
  shift 2
  mkdir -p "$dir"
  rm -f "$dir/$name.rc" "$dir/$name.pid"
  # The status file appears only once CMD has ended, whatever way it ended.
  (
    "$@" >"$dir/$name.log" 2>&1
    echo $? >"$dir/$name.rc.tmp" && mv "$dir/$name.rc.tmp" "$dir/$name.rc"
  ) </dev/null >/dev/null 2>&1 &
  echo $! >"$dir/$name.pid"
  echo "background.sh: $name started beside the other suites (output in $dir/$name.log)"
  ;;
wait)
  [ -f "$dir/$name.log" ] || { echo "background.sh: $name was never started" >&2; exit 2; }
  # Until the status file appears; a runner killed before it could write one is a failure, not a
  # wait for ever.
  while [ ! -f "$dir/$name.rc" ]; do
    if ! kill -0 "$(cat "$dir/$name.pid")" 2>/dev/null; then
      sleep 1
      [ -f "$dir/$name.rc" ] && break
      cat "$dir/$name.log"
      echo "background.sh: $name ended without a status (killed?)" >&2
      exit 1
    fi
    sleep 2
  done
  cat "$dir/$name.log"
  rc=$(cat "$dir/$name.rc")
  [ "$rc" = 0 ] || echo "background.sh: $name failed with status $rc" >&2
  exit "$rc"
  ;;
*)
  echo "usage: background.sh start NAME CMD... | wait NAME" >&2
  exit 2
  ;;
esac
