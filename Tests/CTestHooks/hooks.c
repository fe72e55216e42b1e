// Hooks of the test process itself (see CTestHooks.h).
//
// SwiftPM runs the test binary twice, XCTest first (CropKit has no XCTest
// tests: it prints "Executed 0 tests") and then Swift Testing: the lines
// below are printed by the Swift Testing run only. Its output goes to a pipe
// under CI and was block-buffered there, so minutes of results came in
// bursts with long silences between; it is line-buffered here, before the
// first test runs.
#include "CTestHooks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ck_reasons = 16 };
static struct {
    const char *reason;
    int count;
} ck_skips[ck_reasons];
static pthread_mutex_t ck_skips_lock = PTHREAD_MUTEX_INITIALIZER;
static int ck_swift_testing = 0;

void ck_test_skipped(const char *reason) {
    pthread_mutex_lock(&ck_skips_lock);
    for (int i = 0; i < ck_reasons; i++) {
        if (ck_skips[i].reason == NULL) ck_skips[i].reason = strdup(reason);
        if (ck_skips[i].reason && strcmp(ck_skips[i].reason, reason) == 0) {
            ck_skips[i].count++;
            break;
        }
    }
    pthread_mutex_unlock(&ck_skips_lock);
}

// The package's root: this file is Tests/CTestHooks/hooks.c in it.
static void ck_package_root(char *out, size_t size) {
    snprintf(out, size, "%s", __FILE__);
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(out, '/');
        if (slash) *slash = '\0';
    }
}

static int ck_on_path(const char *tool) {
    const char *path = getenv("PATH");
    char candidate[4096];
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t length = end ? (size_t)(end - path) : strlen(path);
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)length, path, tool);
        if (access(candidate, X_OK) == 0) return 1;
        path = end ? end + 1 : NULL;
    }
    return 0;
}

// "CropKit tests: N tests and suites <verb> (n reason; ...)<tail>".
static void ck_print_skips(const char *verb, const char *tail) {
    int total = 0;
    pthread_mutex_lock(&ck_skips_lock);
    for (int i = 0; i < ck_reasons && ck_skips[i].reason; i++) total += ck_skips[i].count;
    fprintf(stdout, "CropKit tests: %d tests and suites %s", total, verb);
    for (int i = 0; i < ck_reasons && ck_skips[i].reason; i++)
        fprintf(stdout, "%s%d %s", i == 0 ? " (" : "; ", ck_skips[i].count, ck_skips[i].reason);
    fprintf(stdout, "%s%s\n", total ? ")" : "", tail);
    pthread_mutex_unlock(&ck_skips_lock);
    fflush(stdout);
}

static pthread_once_t ck_begun = PTHREAD_ONCE_INIT;

static void ck_announce(void) {
    if (ck_swift_testing) ck_print_skips("will be skipped", "; the rest run now");
}

void ck_run_begins(void) { pthread_once(&ck_begun, ck_announce); }

static void ck_closing(void) { ck_print_skips("skipped", "; passed and failed: the line above"); }

__attribute__((constructor)) static void ck_test_start(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "swift-testing") == 0) ck_swift_testing = 1;
    if (!ck_swift_testing) return;
    setvbuf(stdout, NULL, _IOLBF, 0);
    setvbuf(stderr, NULL, _IOLBF, 0);
    char root[4096], data[4200];
    const char *override = getenv("CROPKIT_TESTDATA");
    if (override && *override) {
        snprintf(data, sizeof data, "%s", override);
    } else {
        ck_package_root(root, sizeof root);
        snprintf(data, sizeof data, "%s/../shared/testdata", root);
    }
    int corpora = access(data, R_OK) == 0;
    int exiftool = ck_on_path("exiftool");
    fprintf(stdout, "CropKit tests: %s%s%s\n",
            corpora ? "the conformance corpora are present" :
                      "no conformance corpora (set CROPKIT_TESTDATA or place them at ../shared/testdata): "
                      "the tests that read them will be reported as skipped, and counted at the end",
            exiftool ? "" : "; no exiftool (Debian: libimage-exiftool-perl): its cross-checks will be skipped",
            corpora && exiftool ? "; every test runs" : "");
    atexit(ck_closing);
}
