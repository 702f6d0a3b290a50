/*
 * core/error.h - the one list of axbench error codes.
 *
 * Every fallible function returns int: 0 for success or a negative AX_E*
 * value from the X-macro list below, which also generates ax_strerror().
 * Detailed, input-naming messages live in the handle that failed (for
 * example ax_db_errmsg) or in a caller-supplied buffer; the code only says
 * which class of failure it was, so cli/ can map it to an exit status.
 */
#ifndef AX_ERROR_H
#define AX_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#define AX_ERRORS(X)                                                           \
	X(AX_OK, 0, "success")                                                 \
	X(AX_EINVAL, -1, "invalid argument")                                   \
	X(AX_ENOMEM, -2, "out of memory")                                      \
	X(AX_EIO, -3, "input/output error")                                    \
	X(AX_ENODEV, -4, "no usable Vulkan device")                            \
	X(AX_EVK, -5, "Vulkan call failed")                                    \
	X(AX_EDB, -6, "database error")                                        \
	X(AX_EDBVERSION, -7, "database written by a newer axbench")            \
	X(AX_ECONFIG, -8, "configuration error")                               \
	X(AX_EVERIFY, -9, "result failed verification")                        \
	X(AX_ETIMEOUT, -10, "timed out")                                       \
	X(AX_EUNSUPPORTED, -11, "not supported on this device")                \
	X(AX_EINTR, -12, "interrupted")                                        \
	X(AX_ENOTFOUND, -13, "not found")                                      \
	X(AX_EDEVMEM, -14, "out of device memory")                             \
	X(AX_EDEVLOST, -15, "Vulkan device lost")                              \
	X(AX_EREGRESSION, -16, "regression found")                             \
	X(AX_EAMBIGUOUS, -17, "verdict ambiguous")                             \
	X(AX_EVALIDATION, -18, "Vulkan validation layer reported a problem")   \
	X(AX_ECOMPILE, -19, "the driver could not build the pipeline")         \
	X(AX_EBUSY, -20, "database locked by another process")

enum ax_error {
#define AX_ERROR_ENUM(name, value, text) name = value,
	AX_ERRORS(AX_ERROR_ENUM)
#undef AX_ERROR_ENUM
};

/* Short, static description of an error code; never NULL. */
const char *ax_strerror(int err);

/*
 * vsnprintf into buf (n bytes), except that a message too long for buf
 * keeps its start and its end joined by " [...] ": a very long input
 * (a path, an argument) is cut, never the reason and fix that follow it.
 * A NULL buffer or zero size is ignored.
 */
void ax_vfmt_fit(char *buf, size_t n, const char *fmt, va_list ap);

/*
 * snprintf into a caller's message buffer (cut as ax_vfmt_fit does); a NULL
 * buffer or zero size is allowed and ignored, so callers that do not want the
 * text pass NULL. Always returns err, so "return ax_errf(buf, n, AX_EINVAL,
 * ...)" reads well.
 */
int ax_errf(char *buf, size_t n, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A NULL-terminated list of names as "a, b or c" into buf (for messages
 * that name what is allowed, from the table that defines it). */
void ax_join_names(const char *const *names, char *buf, size_t n);

#endif
