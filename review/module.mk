# review/: verify anything: freezes, derived documents, archives, bags
REVIEW_OBJS = review/review.o review/page.o
REVIEW_UNIT =
