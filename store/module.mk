# store/: the content-addressed object store
STORE_OBJS = store/cas.o
STORE_UNIT = tests/unit/cas_index
