# review/: verify anything: freezes, derived documents, archives, bags
REVIEW_OBJS = review/review.o
REVIEW_UNIT =
