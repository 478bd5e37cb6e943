/* SPDX-License-Identifier: MIT */
/*
 * The physical limit of a trace walk: a program that reads every byte of a
 * file once (read() into one reused 1 MiB buffer, a sum over it in 8-byte
 * words) and does nothing else. bench/whole_process.sh times `gcev count`
 * against it on the same file from the page cache.
 *
 *   bench_read FILE
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    static uint8_t buf[1 << 20];
    if (argc != 2) {
        fprintf(stderr, "usage: bench_read FILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    uint64_t sum = 0, total = 0;
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r <= 0) {
            break;
        }
        memset(buf + r, 0, (size_t)(-r & 7));
        for (ssize_t i = 0; i < r; i += 8) {
            uint64_t w;
            memcpy(&w, buf + i, 8);
            sum += w;
        }
        total += (uint64_t)r;
    }
    close(fd);
    printf("%llu bytes, sum %llx\n", (unsigned long long)total, (unsigned long long)sum);
    return 0;
}
