#!/bin/bash
# After whole.sh: the split's timeline (HAY_SPLIT_DEBUG=1) and --stats of the default auto, twice each.
H=build-gpu/hay; D=.dev-data/patterns
for f in /tmp/c4g /tmp/c1g; do for p in snort-community et-open; do for k in 1 2; do
  echo "== $(basename $f) $p"
  HAY_SPLIT_DEBUG=1 $H find --count-matches --stats --escapes -f $D/$p.txt $f 2>&1 | grep -E "ready|first piece|split cpu|device init" | cut -c1-200
done; done; done
