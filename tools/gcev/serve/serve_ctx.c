/* SPDX-License-Identifier: MIT */
/* The lock every thread of gcev serve shares (serve.h), and its clock. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <time.h>

#include "serve.h"

void serve_lock(serve_ctx *c)
{
    pthread_mutex_lock((pthread_mutex_t *)c->mu);
}

void serve_unlock(serve_ctx *c)
{
    pthread_mutex_unlock((pthread_mutex_t *)c->mu);
}

double serve_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}
