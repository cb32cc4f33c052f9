/** A run that could not finish for a reason outside the arguments (exit 1, message, no stack). */
export class CommandFailed extends Error {}
