# src-map: pc -> source lines through the kernel binary's debug information
# (cmd/src-map.c, cmd/src-map/).  See man/src-map.1.
TOOLS += src-map
