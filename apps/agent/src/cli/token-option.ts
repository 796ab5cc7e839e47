import { Option } from 'commander';

/** `--token`, or KNEEBOARD_TOKEN: what every command that talks to a team's API takes. */
export const tokenOption = () => new Option('--token <token>', 'Kneeboard API token (not needed for an API open on loopback)').env('KNEEBOARD_TOKEN');
