#!/bin/sh
# cropkit batch as 4 shards on one machine (or more, with --sshlogin) by GNU
# parallel: shard I crops the manifest lines whose index is I modulo 4.
# With ROOT, every input and output must resolve inside it (cropkit batch
# --root): give it for a manifest from anyone else.
#   sh parallel.sh MANIFEST.jsonl [ROOT]
# then merge: cropkit batch MANIFEST.jsonl --merge reports/shard-*.jsonl
# The paths reach the command through the environment, never through the
# command line GNU parallel hands a shell: a path holding spaces, quotes,
# $(), backticks or {} is passed as it is, the manifest after --.
set -eu
CROPKIT_MANIFEST=$1 CROPKIT_ROOT=${2:-} CROPKIT=${CROPKIT:-cropkit}
export CROPKIT_MANIFEST CROPKIT_ROOT CROPKIT
mkdir -p reports
parallel --halt never \
  'exec "$CROPKIT" batch --shard {}/4 --jobs 1 --report=reports/shard-{}.jsonl ${CROPKIT_ROOT:+"--root=$CROPKIT_ROOT"} -- "$CROPKIT_MANIFEST"' \
  ::: 0 1 2 3
