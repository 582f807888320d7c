/** The node flags of the `ninepoint` command, read from its first line (scripts/node-flags.mjs). */
export declare const NODE_FLAGS: readonly string[];
