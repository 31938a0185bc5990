#!/bin/sh
# atomic_powercut.sh TRIALS BACKEND CHECKER MPIEXEC... PROG
# A machine crash (power cut: the page cache is lost) during atomic syncs,
# emulated without device-mapper: an ext4 on a loop device over an image on
# a tmpfs (private mount namespace). Each trial runs "PROG loop LOGDIR
# BACKEND DIR" (window files in DIR on it, the records of returned syncs in
# LOGDIR off it), stops every rank (SIGSTOP) at a random instant, copies the image
# (what the device holds then: a write is on it only if issued before the
# copy, and the sync protocol issues a write only after what it depends on
# was flushed, so the copy is a state a crash could leave; dirty cached pages
# are not in it), kills the ranks, mounts the copy (ext4 replays its
# journal) and runs CHECKER on it: each rank's file must hold a synced state.
# Needs root, losetup and mkfs.ext4: 77 with "SKIP: ..." otherwise. Leaves no
# mount or loop device behind (a private mount namespace, traps).
set -u
trials=$1 backend=$2 checker=$3
shift 3
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: atomic_powercut.sh needs root (loop devices, mounts); run the suite as root to cover it"
  exit 77
fi
for t in losetup mkfs.ext4 unshare; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: $t is not installed"; exit 77; }
done
if [ -z "${MPISW_IN_MOUNTNS:-}" ]; then
  unshare --mount --propagation private true 2>/dev/null ||
    { echo "SKIP: cannot make a private mount namespace (unshare --mount)"; exit 77; }
  MPISW_IN_MOUNTNS=1 exec unshare --mount --propagation private /bin/sh "$0" "$trials" \
    "$backend" "$checker" "$@"
fi
np=1 prev=""
for a in "$@"; do
  [ "$prev" = "-n" ] && np=$a
  prev=$a
done
top=$(mktemp -d /tmp/mpisw-atomic-powercut.XXXXXX) || exit 1
dev="" cdev="" pids=""
cleanup() {
  for p in $pids; do kill -9 "$p" 2>/dev/null; done
  umount "$top/fs" 2>/dev/null
  umount "$top/copy" 2>/dev/null
  [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
  [ -n "$cdev" ] && losetup -d "$cdev" 2>/dev/null
  umount "$top" 2>/dev/null || umount -l "$top" 2>/dev/null
  rmdir "$top" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 143' INT TERM
rnd() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; }
# losetup -f races with other jobs taking loop devices at the same moment: retry
attach() {
  for try in 1 2 3 4 5; do
    losetup -f --show "$1" 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}
mount -t tmpfs -o size=200m,mode=0700 mpisw-atomic-powercut "$top" ||
  { echo "SKIP: cannot mount a tmpfs"; exit 77; }
mkdir "$top/fs" "$top/copy"
truncate -s 48M "$top/img"
mkfs.ext4 -q -F "$top/img" >/dev/null 2>&1 || { echo "FAIL: mkfs.ext4"; exit 1; }
dev=$(attach "$top/img") || { dev=""; echo "SKIP: losetup failed"; exit 77; }
mount "$dev" "$top/fs" || { echo "FAIL: cannot mount $dev"; exit 1; }
start=$(date +%s.%N)
t=0 syncs=0 inflight=0
while [ $t -lt "$trials" ]; do
  dir=$top/log$t # the ranks' records, off the device that loses its cache
  mkdir "$dir" "$top/fs/t$t"
  "$@" loop "$dir" "$backend" "$top/fs/t$t" >"$top/job.log" 2>&1 &
  job=$!
  i=0 n=0
  while [ $i -lt 2000 ]; do
    n=$(ls "$dir" | grep -c '^pid-r') || true
    [ "$n" -ge "$np" ] && break
    kill -0 $job 2>/dev/null || break
    sleep 0.005
    i=$((i + 1))
  done
  if [ "$n" -lt "$np" ]; then
    cat "$top/job.log"
    echo "FAIL: trial $t: the ranks did not start"
    kill -9 $job 2>/dev/null
    exit 1
  fi
  pids=$(cat "$dir"/pid-r*)
  sleep "$(printf '0.%03d' $(($(rnd) % 150 + 20)))"
  for p in $pids; do kill -STOP "$p"; done
  cp --sparse=always "$top/img" "$top/img.copy" # the device at this instant
  for p in $pids; do kill -9 "$p"; done
  wait $job 2>/dev/null
  pids=""
  cdev=$(attach "$top/img.copy") || { cdev=""; echo "FAIL: losetup of the copy"; exit 1; }
  if ! mount "$cdev" "$top/copy"; then
    echo "FAIL: trial $t: the copy does not mount"
    exit 1
  fi
  out=$("$checker" "$dir" "$np" "$top/copy/t$t")
  rc=$?
  umount "$top/copy"
  losetup -d "$cdev"
  cdev=""
  rm -f "$top/img.copy"
  if [ $rc -ne 0 ]; then
    echo "$out"
    cat "$top/job.log"
    echo "FAIL: trial $t (power cut, $backend)"
    exit 1
  fi
  inflight=$((inflight + $(echo "$out" | grep -c 'in flight')))
  syncs=$((syncs + $(echo "$out" | sed -n 's/.*state \([0-9]*\).*/\1/p' | awk '{s+=$1} END {print s+0}')))
  rm -rf "$dir" "$top/fs/t$t"
  t=$((t + 1))
done
end=$(date +%s.%N)
echo "$trials power cuts, backend $backend, $np ranks: every file held a synced state ($syncs syncs in all; $inflight files held the sync in flight, committed before the cut); $(awk "BEGIN { printf \"%.1f\", $end - $start }") s"
