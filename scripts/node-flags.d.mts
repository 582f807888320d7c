/** Node's flags for a server Ninepoint starts (scripts/node-flags.mjs). */
export declare const NODE_FLAGS: readonly string[];
