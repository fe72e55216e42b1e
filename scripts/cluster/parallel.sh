#!/bin/sh
# cropkit batch as 4 shards on one machine (or more, with --sshlogin) by GNU
# parallel: shard I crops the manifest lines whose index is I modulo 4.
#   sh parallel.sh MANIFEST.jsonl
# then merge: cropkit batch MANIFEST.jsonl --merge reports/shard-*.jsonl
mkdir -p reports
parallel --halt never "${CROPKIT:-cropkit}" batch "$1" --shard {}/4 --jobs 1 --report reports/shard-{}.jsonl ::: 0 1 2 3
