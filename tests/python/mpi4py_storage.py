"""An mpi4py program on storage windows through LD_PRELOAD.

Run as: mpiexec -n N env LD_PRELOAD=libmpisw-openmpi.so.0 python3 mpi4py_storage.py
Each rank puts a block into the next rank's storage window; after
MPI_Win_sync and after MPI_Win_free the bytes must be in each rank's file.
"""
import os
import shutil
import sys
import tempfile

from mpi4py import MPI

SIZE = 65536


def fail(msg):
    print(f"FAIL rank {MPI.COMM_WORLD.Get_rank()}: {msg}", flush=True)
    MPI.COMM_WORLD.Abort(1)


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    tmp = tempfile.mkdtemp(prefix="mpisw-py-") if rank == 0 else None
    tmp = comm.bcast(tmp, root=0)

    info = MPI.Info.Create()
    info.Set("alloc_type", "storage")
    info.Set("storage_alloc_filename", os.path.join(tmp, "py-%r.win"))
    win = MPI.Win.Allocate(SIZE, 1, info, comm)
    info.Free()

    used = win.Get_info()
    path = used.Get("storage_alloc_filename")
    if used.Get("alloc_type") != "storage" or path != os.path.join(tmp, f"py-{rank}.win"):
        fail(f"effective hints wrong: alloc_type={used.Get('alloc_type')} file={path}")
    used.Free()

    target = (rank + 1) % size
    block = bytes([rank + 1]) * 4096
    win.Lock(target)
    win.Put(block, target, target=128)
    win.Unlock(target)
    comm.Barrier()
    win.Lock(rank)
    win.Sync()
    win.Unlock(rank)

    sender = (rank - 1) % size
    want = bytes([sender + 1]) * 4096
    with open(path, "rb") as f:
        f.seek(128)
        if f.read(4096) != want:
            fail("the file does not hold the put block after MPI_Win_sync")
    mem = memoryview(win.tomemory()).cast("B")
    if bytes(mem[128:128 + 4096]) != want:
        fail("the window does not hold the put block")
    del mem
    win.Free()
    if os.path.getsize(path) != SIZE:
        fail("the file changed size at MPI_Win_free")
    comm.Barrier()
    if rank == 0:
        shutil.rmtree(tmp)
        print(f"mpi4py storage windows: ok on {size} ranks ({MPI.Get_library_version().splitlines()[0]})")


if __name__ == "__main__":
    sys.exit(main())
