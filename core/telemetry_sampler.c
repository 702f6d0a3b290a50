/*
 * core/telemetry_sampler.c - a thread that reads one telemetry source at a
 * fixed interval and keeps the whole series.
 *
 * The thread waits on a condition variable with an absolute deadline, so
 * that its ticks do not drift with the time a read takes and a stop wakes
 * it at once instead of after a whole interval.
 */
#include "core/error.h"
#include "core/telemetry_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ax_tel_sampler {
	struct ax_tel_source *src;
	double interval;
	pthread_t thread;
	pthread_mutex_t lock; /* the series and the stop flag */
	pthread_mutex_t read; /* the source: a mark reads from another
				 thread, and a source keeps state */
	pthread_cond_t wake;
	bool stop, running;
	struct ax_tel_reading *series;
	size_t n, cap;
};

/* Append one reading (lock held).  A full buffer that cannot grow drops
 * the reading: a long monitor must not kill the measurement it watches. */
static void append(struct ax_tel_sampler *s, const struct ax_tel_reading *r)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		void *p = realloc(s->series, cap * sizeof(*s->series));
		if (!p)
			return;
		s->series = p;
		s->cap = cap;
	}
	s->series[s->n++] = *r;
}

/* Read and append; returns the reading's index.  The read lock is held
 * across the append so that readings land in time order. */
static size_t sample(struct ax_tel_sampler *s)
{
	struct ax_tel_reading r;
	pthread_mutex_lock(&s->read);
	ax_tel_read(s->src, &r); /* a failed read is a row of NANs */
	pthread_mutex_lock(&s->lock);
	append(s, &r);
	size_t at = s->n ? s->n - 1 : 0;
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_unlock(&s->read);
	return at;
}

static void *sampler_main(void *arg)
{
	struct ax_tel_sampler *s = arg;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	long long step = (long long)(s->interval * 1e9);
	for (;;) {
		next.tv_nsec += step % 1000000000LL;
		next.tv_sec += (time_t)(step / 1000000000LL);
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		pthread_mutex_lock(&s->lock);
		while (!s->stop &&
		       pthread_cond_timedwait(&s->wake, &s->lock, &next) == 0)
			;
		bool stop = s->stop;
		pthread_mutex_unlock(&s->lock);
		if (stop)
			return NULL;
		sample(s);
	}
}

int ax_tel_sampler_start(struct ax_tel_source *src, double interval_s,
			 struct ax_tel_sampler **out)
{
	*out = NULL;
	if (!src || !(interval_s > 0))
		return AX_EINVAL;
	struct ax_tel_sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	s->src = src;
	s->interval = interval_s;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->read, NULL);
	sample(s);
	if (pthread_create(&s->thread, NULL, sampler_main, s)) {
		ax_tel_sampler_destroy(s);
		return AX_ENOMEM;
	}
	s->running = true;
	*out = s;
	return 0;
}

size_t ax_tel_sampler_copy(struct ax_tel_sampler *s, size_t from,
			   struct ax_tel_reading *out, size_t max)
{
	pthread_mutex_lock(&s->lock);
	size_t k = from < s->n ? s->n - from : 0;
	if (k > max)
		k = max;
	if (k)
		memcpy(out, s->series + from, k * sizeof(*out));
	pthread_mutex_unlock(&s->lock);
	return k;
}

size_t ax_tel_sampler_mark(struct ax_tel_sampler *s) { return sample(s); }

void ax_tel_sampler_stop(struct ax_tel_sampler *s)
{
	if (!s || !s->running)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	s->running = false;
	/* The end of the measured span: one reading at the moment of stop,
	 * unless the last tick was just now (a power derived from a counter
	 * over a millisecond is noise) and the series already has a span. */
	double last = s->n ? s->series[s->n - 1].t : 0;
	if (s->n < 2 || ax_tel_now() - last >= 0.5 * s->interval)
		sample(s);
}

const struct ax_tel_reading *
ax_tel_sampler_series(const struct ax_tel_sampler *s, size_t *n)
{
	*n = s->n;
	return s->series;
}

void ax_tel_sampler_destroy(struct ax_tel_sampler *s)
{
	if (!s)
		return;
	ax_tel_sampler_stop(s);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->read);
	pthread_cond_destroy(&s->wake);
	free(s->series);
	free(s);
}
