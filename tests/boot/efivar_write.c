/* efivar_write - the guest side of the NVRAM boot test (run.py nvram):
 * write one efivarfs file the way a tool that updates db/dbx does, in ONE
 * write() of the attribute word and the signed update (efivarfs turns each
 * write into one SetVariable), clearing the immutable flag efivarfs puts on
 * db/dbx first.  Prints "KT-WRITE NAME ok" or "KT-WRITE NAME fail ERRNO".
 *   efivar_write EFIVARFS_FILE ATTRS UPDATE NAME
 * Built static by run.py (gcc -static): the initramfs has only busybox. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char *errname(int e)
{
    switch (e) {
    case EINVAL: return "EINVAL";
    case ENOSPC: return "ENOSPC";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EIO: return "EIO";
    default: return strerror(e);
    }
}

int main(int argc, char **argv)
{
    if (argc != 5)
        return 64;
    FILE *in = fopen(argv[3], "rb");
    if (!in)
        return 66;
    uint8_t *buf = malloc(1 << 20);
    uint32_t attrs = (uint32_t)strtoul(argv[2], NULL, 0);
    memcpy(buf, &attrs, 4);
    size_t n = fread(buf + 4, 1, (1 << 20) - 4, in);
    fclose(in);
    int fd = open(argv[1], O_RDONLY);
    if (fd >= 0) {
        int flags;
        if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_IMMUTABLE_FL)) {
            flags &= ~FS_IMMUTABLE_FL;
            ioctl(fd, FS_IOC_SETFLAGS, &flags);
        }
        close(fd);
    }
    fd = open(argv[1], O_WRONLY | O_CREAT, 0644);
    ssize_t w = fd < 0 ? -1 : write(fd, buf, n + 4);
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (w == (ssize_t)(n + 4))
        printf("KT-WRITE %s ok\n", argv[4]);
    else
        printf("KT-WRITE %s fail %s\n", argv[4], errname(e));
    fflush(stdout);
    return 0;
}
