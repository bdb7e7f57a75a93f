#!/usr/bin/env python3
"""A passthrough FUSE filesystem that sleeps DELAY_MS before every operation: a stand-in for a slow
network filesystem (NFS, WSL /mnt/c), for measuring what synchronous fs calls cost the event loop."""
import errno, os, sys, time
from fusepy import FUSE, FuseOSError, Operations

DELAY = float(os.environ.get('DELAY_MS', '20')) / 1000

class Slow(Operations):
    def __init__(self, root): self.root = root
    def _p(self, path): return os.path.join(self.root, path.lstrip('/'))
    def _slow(self): time.sleep(DELAY)
    def getattr(self, path, fh=None):
        self._slow()
        try: st = os.lstat(self._p(path))
        except OSError as e: raise FuseOSError(e.errno)
        return {k: getattr(st, k) for k in ('st_atime','st_ctime','st_gid','st_mode','st_mtime','st_nlink','st_size','st_uid')}
    def readdir(self, path, fh):
        self._slow(); return ['.', '..'] + os.listdir(self._p(path))
    def readlink(self, path): self._slow(); return os.readlink(self._p(path))
    def open(self, path, flags): self._slow(); return os.open(self._p(path), flags)
    def read(self, path, size, offset, fh):
        self._slow(); os.lseek(fh, offset, 0); return os.read(fh, size)
    def release(self, path, fh): return os.close(fh)
    def statfs(self, path):
        st = os.statvfs(self._p(path))
        return {k: getattr(st, k) for k in ('f_bavail','f_bfree','f_blocks','f_bsize','f_favail','f_ffree','f_files','f_flag','f_frsize','f_namemax')}
    def access(self, path, mode):
        self._slow()
        if not os.access(self._p(path), mode): raise FuseOSError(errno.EACCES)

if __name__ == '__main__':
    FUSE(Slow(sys.argv[1]), sys.argv[2], foreground=True, nothreads=False, ro=True)
