/*
 * app/recommend_measure.h - `recommend --measure`: measure, on the one
 * selected device, the suites whose results the recommendation rules
 * lack (each suite's recommend_needs: the sweeps, or one result), with
 * the cases of configs/recommend.yaml, into a run of kind "recommend".
 */
#ifndef AX_APP_RECOMMEND_MEASURE_H
#define AX_APP_RECOMMEND_MEASURE_H

#include "app/app.h"

/* Measure what is missing (nothing, said on stderr, when nothing is);
 * the progress goes to stderr so that stdout carries only the
 * recommendation.  label names the run (NULL: HOST/DEVICE).  Returns the
 * exit code (2 for --device all: one device is measured). */
int ax_recommend_measure_missing(struct ax_app *app, const char *label);

#endif
