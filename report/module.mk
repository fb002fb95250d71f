# report/: one self-contained HTML page of a bundle for a reviewer
REPORT_OBJS = report/page.o report/tuple.o report/tables.o report/report.o report/gate.o
REPORT_UNIT =
