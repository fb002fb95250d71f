# bundle/: the publication gate, bundle archives checked
BUNDLE_OBJS = bundle/annotate.o bundle/attest.o bundle/crate.o bundle/bundle.o bundle/spec.o \
	bundle/read.o bundle/graph.o bundle/refreeze.o bundle/slow.o bundle/git.o bundle/archive.o \
	bundle/verify_item.o bundle/verify_doc.o bundle/verify_payload.o bundle/verify_secret.o \
	bundle/verify_bag.o
BUNDLE_UNIT = tests/unit/annotate_check tests/unit/bundle_verify
