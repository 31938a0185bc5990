#!/bin/sh
# Runs one MPI rank as if on its own host: a new UTS namespace whose host
# name is the host Hydra launched the rank for ($MPIR_CVAR_CH3_INTERFACE_HOSTNAME,
# set by mpiexec.mpich -launcher fork -hosts a,b). Needs CAP_SYS_ADMIN.
#   mpiexec.mpich -launcher fork -hosts a,b -ppn 2 -n 4 simhost.sh prog args...
if [ -z "${MPIR_CVAR_CH3_INTERFACE_HOSTNAME:-}" ]; then
  echo "simhost.sh: MPIR_CVAR_CH3_INTERFACE_HOSTNAME is not set (run under mpiexec.mpich -hosts ...)" >&2
  exit 1
fi
exec unshare --uts sh -c 'hostname "$MPIR_CVAR_CH3_INTERFACE_HOSTNAME" && exec "$@"' simhost "$@"
