# bagit/: BagIt bags, written and read as archives or folders
BAGIT_OBJS = bagit/bag.o
BAGIT_UNIT = tests/unit/bundle_bag
