// What a rendered reply is made of: bytes to write, pauses, and how the response ends.

/** One step of writing a response: data, a pause, or an ending other than the normal one. */
export type Frame = { data: string | Uint8Array } | { delay: number } | { control: 'end' | 'disconnect' | 'hang' };
