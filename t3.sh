trap 'echo trapped >&2; exit 130' INT
x=$(sleep 1 | cat; echo hi)
echo "after: $x"
