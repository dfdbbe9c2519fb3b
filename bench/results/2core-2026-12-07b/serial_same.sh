#!/bin/sh
# Compares analyze --json of two binaries over the corpus, examples and mm512 on 1 and 2 threads.
old=$1 new=$2
same=0 differ=0 failed=0
for w in tests/corpus/*.toml examples/*.toml /tmp/mm512.toml; do
  for t in 1 2; do
    for c in "" "--compat aiwc"; do
      a=$($old analyze "$w" --threads $t --json $c 2>/dev/null); ra=$?
      b=$($new analyze "$w" --threads $t --json $c 2>/dev/null); rb=$?
      if [ $ra -ne $rb ]; then echo "EXIT DIFFER $w $t $c"; differ=$((differ+1));
      elif [ "$a" = "$b" ]; then if [ $ra -eq 0 ]; then same=$((same+1)); else failed=$((failed+1)); fi
      else echo "DIFFER $w $t $c"; differ=$((differ+1)); fi
    done
  done
done
echo "identical: $same, differ: $differ, both failed alike: $failed"
