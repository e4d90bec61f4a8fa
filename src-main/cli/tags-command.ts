import { parseArgs } from 'node:util';

import type { Tag } from '../core/api/service-client.js';
import { UsageError } from '../core/errors.js';
import { cliServices, profileName, table, withConnection } from './cli-services.js';
import type { Command } from './command.js';

const USAGE = 'courier tags [--profile NAME] [--category NAME] [--name TEXT] [--limit N] [--json]';

/** `courier tags`: the service's tag lexicology, filtered. */
export const tagsCommand: Command = {
  summary: 'list the tag lexicology (filter by category or name)',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        profile: { type: 'string' },
        category: { type: 'string' },
        name: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      throw new UsageError(`--limit takes a whole number of at least 1, not ${values.limit}`);
    }
    const filters = {
      ...(values.category ? { category_name: values.category } : {}),
      ...(values.name ? { name: values.name } : {}),
    };
    const services = await cliServices(io, 'tags');
    const { tags, total } = await withConnection(
      services,
      profileName(values.profile, io.env),
      async ({ api }) => {
        if (limit !== undefined) {
          const page = await api.listTags({ ...filters, limit });
          return { tags: page.tags, total: page.total_size };
        }
        return api.listAllTags(filters);
      },
    );
    if (values.json) {
      io.out(JSON.stringify(tags.map(plain), null, 2));
      return 0;
    }
    io.out(
      table(
        ['CATEGORY', 'NAME', 'ID'],
        tags.map((t) => [t.category.name, t.name, t.id]),
      ),
    );
    io.err(`${tags.length} of ${total} matching tag(s).`);
    return 0;
  },
};

function plain(tag: Tag): Tag {
  return { id: tag.id, name: tag.name, category: { id: tag.category.id, name: tag.category.name } };
}
