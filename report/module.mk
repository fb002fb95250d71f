# report/: one self-contained HTML page of a bundle for a reviewer
REPORT_OBJS = report/page.o report/tuple.o report/report.o
REPORT_UNIT =
