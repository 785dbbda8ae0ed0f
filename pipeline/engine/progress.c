/* progress: a terminal bar redrawn at most 5 times a second, or a plain
 * status line every 5 seconds when stderr is not a terminal (CI logs). */
#include "progress.h"

#include <time.h>
#include <unistd.h>

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void progress_init(progress *p, FILE *out, uint64_t total)
{
    p->out = out;
    p->tty = out && isatty(fileno(out));
    p->total = total;
    p->done = p->failed = p->skipped = 0;
    p->start = p->last = progress_now();
}

static void fmt_eta(char *buf, size_t n, double s)
{
    if (s < 0 || s > 1e7) {
        snprintf(buf, n, "--:--");
        return;
    }
    long t = (long)(s + 0.5);
    snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

static void draw(progress *p, int final)
{
    double now = progress_now(), el = now - p->start;
    uint64_t ran = p->done - p->skipped, all = p->done;
    double rate = el > 0 ? (double)ran / el : 0;
    char eta[32];
    fmt_eta(eta, sizeof eta, rate > 0 ? (double)(p->total - all) / rate : -1);
    if (p->tty) {
        int width = 30, fill = p->total ? (int)(width * all / p->total) : width;
        char bar[64];
        for (int i = 0; i < width; i++)
            bar[i] = i < fill ? '=' : i == fill ? '>' : ' ';
        bar[width] = '\0';
        fprintf(p->out, "\r[%s] %llu/%llu  failed %llu  %.1f jobs/s  ETA %s ",
                bar, (unsigned long long)all, (unsigned long long)p->total,
                (unsigned long long)p->failed, rate, eta);
        if (final)
            fputc('\n', p->out);
    } else {
        fprintf(p->out, "progress: %llu/%llu done, %llu failed, %.1f jobs/s, "
                "ETA %s\n", (unsigned long long)all,
                (unsigned long long)p->total, (unsigned long long)p->failed,
                rate, eta);
    }
    fflush(p->out);
    p->last = now;
}

int progress_due(const progress *p)
{
    double gap = p->tty ? 0.2 : 5.0;
    return p->out && progress_now() - p->last >= gap;
}

static void maybe_draw(progress *p)
{
    if (progress_due(p))
        draw(p, 0);
}

void progress_job(progress *p, int failed)
{
    p->done++;
    p->failed += failed != 0;
    maybe_draw(p);
}

void progress_skip(progress *p, int failed)
{
    p->done++;
    p->skipped++;
    p->failed += failed != 0;
    maybe_draw(p);
}

void progress_end(progress *p)
{
    if (p->out && (p->tty || p->done > 0))
        draw(p, 1);
}
