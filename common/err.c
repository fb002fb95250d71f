/* err.c: filling and mapping the one error type. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int
err_set(struct err *e, enum err_code code, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return -1;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return -1;
}

int
err_prefix(struct err *e, const char *fmt, ...)
{
	char head[512], old[sizeof e->msg];
	va_list ap;

	if (e == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof old);
	size_t n = strlen(head);
	if (n > sizeof e->msg - 3)
		n = sizeof e->msg - 3;
	memcpy(e->msg, head, n);
	memcpy(e->msg + n, ": ", 2);
	size_t m = strlen(old);
	if (m > sizeof e->msg - n - 3)
		m = sizeof e->msg - n - 3;
	memcpy(e->msg + n + 2, old, m);
	e->msg[n + 2 + m] = '\0';
	return -1;
}

int
err_exit_status(const struct err *e)
{
	if (e == NULL || e->code == ERR_OK)
		return EXIT_HOLDS;
	if (e->code == ERR_FINDING)
		return EXIT_FINDINGS;
	return EXIT_ERROR;
}
