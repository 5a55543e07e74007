// Public names of the parsers of untrusted bytes: each runs in a capped child process.
export {
  DEFAULT_PARSE_LIMITS,
  type ParseFailure,
  type ParseLimits,
  type ParseOutcome,
  type ParserName,
  runParser,
} from './run-parser.ts';
