BUNDLE_OBJS =
BUNDLE_UNIT =
BUNDLE_OBJS += bundle/secret.o
BUNDLE_UNIT += tests/unit/bundle_secret
BUNDLE_OBJS += bundle/bag.o
BUNDLE_UNIT += tests/unit/bundle_bag
BUNDLE_OBJS += bundle/bundle.o
BUNDLE_UNIT += tests/unit/bundle_verify
