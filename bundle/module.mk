# bundle/: the publication gate, the secret scan, bundle archives checked
BUNDLE_OBJS = bundle/secret.o bundle/bundle.o
BUNDLE_UNIT = tests/unit/bundle_secret tests/unit/bundle_verify
