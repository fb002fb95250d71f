# bundle/: the publication gate, bundle archives checked
BUNDLE_OBJS = bundle/annotate.o bundle/attest.o bundle/crate.o bundle/bundle.o
BUNDLE_UNIT = tests/unit/annotate_check tests/unit/bundle_verify
