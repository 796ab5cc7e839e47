import { z } from 'zod';
import { plainLine, REFUSED_IN_LINE } from './text.ts';

/** A path inside the web app with its query string: `/compare?base=…&head=…&scale=log`. */
export const ViewPath = z
  .string()
  .max(4000)
  .regex(/^\/[^/\\]/, 'must be a path inside Kneeboard, starting with a single /')
  .superRefine(plainLine)
  .meta({ pattern: `^/[^/\\\\${REFUSED_IN_LINE}][^${REFUSED_IN_LINE}]*$` });

export const CreateLinkBody = z.object({ path: ViewPath });
export const LinkCode = z.string().regex(/^[0-9A-Za-z]{6,16}$/, 'must be a short link code');
export const Link = z.object({ code: LinkCode, path: ViewPath });
export type Link = z.infer<typeof Link>;
