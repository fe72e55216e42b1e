// Hooks of the test process itself: its output line-buffered, a first line
// that says what the run will skip and why, and a closing line that counts
// the tests skipped.
#ifndef CROPKIT_TEST_HOOKS_H
#define CROPKIT_TEST_HOOKS_H

/// Counts one test skipped for `reason` (a short phrase, copied).
void ck_test_skipped(const char *reason);

/// Prints, once, the line that says how many tests and suites the run
/// skips and why: called as the first suite starts, when Swift Testing has
/// evaluated every gate (it does so while planning, before any test runs).
void ck_run_begins(void);

#endif
