import type Router from '@koa/router';
import type { Context } from 'koa';
import { DiscordError, FormErrors } from './errors.js';
import type { DiscordEmulatorState, RegisteredCommand } from './state.js';

type Json = Record<string, unknown>;

/** Chat-input command and option names: lowercase letters, digits, - and _, 1 to 32 characters. */
const NAME = /^[-_\p{Ll}\p{Lo}\p{N}]{1,32}$/u;
const SUB_COMMAND = 1;
const SUB_COMMAND_GROUP = 2;

/**
 * Application command registration (bulk overwrite and list), global or per guild, checked for the
 * rules Discord enforces on names, descriptions and nesting. The bot token is checked before.
 */
export function registerCommands(router: Router, state: DiscordEmulatorState): void {
  const listOf = (ctx: Context): RegisteredCommand[] => {
    const params = (ctx as Context & { params: Record<string, string> }).params;
    if (params.app !== state.application.id) throw new DiscordError(403, 50001, 'Missing Access');
    const guildId = params.guild;
    if (!guildId) return state.globalCommands;
    const list = state.guildCommands.get(guildId) ?? [];
    state.guildCommands.set(guildId, list);
    return list;
  };
  const overwrite = (ctx: Context) => {
    const list = listOf(ctx);
    const body = (ctx.state as { body?: unknown }).body;
    if (!Array.isArray(body)) throw new DiscordError(400, 50035, 'Invalid Form Body', { _errors: [] });
    const errors = new FormErrors();
    (body as Json[]).forEach((command, index) => checkCommand(command, [index], errors));
    if (body.length > 100) errors.add([], 'BASE_TYPE_MAX_LENGTH', 'Must be 100 or fewer in length.');
    errors.throwIfAny();
    const guildId = (ctx as Context & { params: Record<string, string> }).params.guild;
    const registered = (body as Json[]).map((command): RegisteredCommand => {
      const name = String(command.name);
      const previous = list.find((each) => each.name === name);
      return {
        type: 1,
        default_member_permissions: null,
        nsfw: false,
        ...command,
        id: previous?.id ?? state.snowflake(),
        application_id: state.application.id,
        version: state.snowflake(),
        name,
        ...(guildId ? { guild_id: guildId } : {}),
      };
    });
    list.splice(0, list.length, ...registered);
    ctx.body = registered;
  };
  router.put('/applications/:app/commands', overwrite);
  router.put('/applications/:app/guilds/:guild/commands', overwrite);
  router.get('/applications/:app/commands', (ctx) => (ctx.body = listOf(ctx)));
  router.get('/applications/:app/guilds/:guild/commands', (ctx) => (ctx.body = listOf(ctx)));
}

function checkCommand(command: Json, path: (string | number)[], errors: FormErrors): void {
  checkNamed(command, path, errors);
  const options = Array.isArray(command.options) ? (command.options as Json[]) : [];
  checkOptions(options, [...path, 'options'], errors, 0);
}

function checkOptions(options: Json[], path: (string | number)[], errors: FormErrors, depth: number): void {
  if (options.length > 25) errors.add(path, 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
  const names = new Set<string>();
  let sawRequiredEnd = false;
  options.forEach((option, index) => {
    const at = [...path, index];
    checkNamed(option, at, errors);
    if (names.has(String(option.name)))
      errors.add([...at, 'name'], 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', 'Option names must be unique');
    names.add(String(option.name));
    const nested = option.type === SUB_COMMAND || option.type === SUB_COMMAND_GROUP;
    if (nested && (depth > 1 || (depth === 1 && option.type === SUB_COMMAND_GROUP))) {
      errors.add([...at, 'type'], 'APPLICATION_COMMAND_OPTION_TYPE_INVALID', 'Subcommands nest at most two levels');
    }
    if (option.type === SUB_COMMAND_GROUP) {
      const children = Array.isArray(option.options) ? (option.options as Json[]) : [];
      if (children.some((child) => child.type !== SUB_COMMAND)) {
        errors.add([...at, 'options'], 'APPLICATION_COMMAND_OPTION_TYPE_INVALID', 'A group holds subcommands only');
      }
    }
    if (nested)
      checkOptions(
        Array.isArray(option.options) ? (option.options as Json[]) : [],
        [...at, 'options'],
        errors,
        depth + 1,
      );
    if (!nested && option.required !== true) sawRequiredEnd = true;
    else if (!nested && sawRequiredEnd) {
      errors.add(
        [...at, 'required'],
        'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
        'Required options must be placed before non-required options',
      );
    }
  });
}

function checkNamed(item: Json, path: (string | number)[], errors: FormErrors): void {
  if (typeof item.name !== 'string' || !NAME.test(item.name) || item.name !== item.name.toLowerCase()) {
    errors.add([...path, 'name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
  }
  const description = item.description;
  if (typeof description !== 'string' || description.length < 1 || description.length > 100) {
    errors.add([...path, 'description'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  }
}
