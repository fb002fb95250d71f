# derive/: every derived kind computed again from its input and compared
DERIVE_OBJS = derive/derive.o
DERIVE_UNIT =
