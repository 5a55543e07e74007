// A well-behaved guest: prints its arguments and environment, reads stdin, exits 0.
export const run = {
  run() {
    console.log(JSON.stringify({ hello: 'world' }));
  },
};
