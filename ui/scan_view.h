/* scan_view.h: `ctxscope scan` from the command line (scan_cmd.c) and its
 * table as an inspector view (view_scan.c). */
#ifndef CTXSCOPE_SCAN_VIEW_H
#define CTXSCOPE_SCAN_VIEW_H

#include <stdbool.h>

struct app;
struct scan_result;

/* Opens the table over the inspector; takes res (also on failure), sorted
 * by sort (enum scan_sort). false: the view stack is full. */
bool app_scan_start(struct app *app, struct scan_result *res, int sort);

/* `ctxscope scan ARGS` (argv[0] "scan"); `ctxscope FOLDER` comes here with
 * folder_only (the inspector on the table). Returns the exit status. */
int scan_main(int argc, char **argv, bool utf8, bool folder_only);

#endif
