/** A small argv parser: --flag, --key value, --key=value, positionals. */
export interface ParsedArgs {
  flags: Map<string, string | true>;
  positionals: string[];
}

export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseArgs(argv: string[], valued: ReadonlySet<string>, boolean: ReadonlySet<string>): ParsedArgs {
  const flags = new Map<string, string | true>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('--')) {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const key = eq >= 0 ? a.slice(2, eq) : a.slice(2);
    if (valued.has(key)) {
      const v = eq >= 0 ? a.slice(eq + 1) : argv[++i];
      if (v === undefined) throw new UsageError(`--${key} needs a value`);
      flags.set(key, v);
    } else if (boolean.has(key) && eq < 0) {
      flags.set(key, true);
    } else {
      throw new UsageError(`unknown option --${key}`);
    }
  }
  return { flags, positionals };
}

export function str(args: ParsedArgs, key: string): string | undefined {
  const v = args.flags.get(key);
  return typeof v === 'string' ? v : undefined;
}
