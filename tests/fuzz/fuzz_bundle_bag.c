/* fuzz_bundle_bag.c: an untrusted archive (any bytes) opened, validated and
 * verified as a bundle: no crash, no leak, nothing written outside the
 * private temporary folder, which is gone afterwards. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "../../bundle/bundle.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct err e = ERR_INIT;
	cJSON *checks = cJSON_CreateArray();
	int fd;

	snprintf(path, sizeof path, "/tmp/fuzz-bag-%d.tar", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		cJSON_Delete(checks);
		return 0;
	}
	close(fd);
	bundle_verify_path(path, checks, &e);
	cJSON_Delete(checks);
	unlink(path);
	return 0;
}
