# sign/: Ed25519 signatures in minisign's formats (libcrypto), BLAKE2b
SIGN_OBJS = sign/blake2b.o sign/minisign.o
SIGN_UNIT = tests/unit/blake2b_check
