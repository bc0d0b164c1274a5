import type { CoreDeps } from '../context.js';

/**
 * Where a chat app's installations live (Slack's OAuth installs, one per workspace): sealed with
 * the SecretBox, since each holds a bot token. The adapter decides what an installation is.
 */
export const chatInstallations = {
  async save(deps: CoreDeps, id: string, installation: unknown): Promise<void> {
    const sealed = deps.secrets.seal(JSON.stringify(installation));
    await deps.db.chatInstallations.replaceOne({ _id: id }, { sealed, updatedAt: deps.now() }, { upsert: true });
  },
  async find(deps: CoreDeps, id: string): Promise<unknown> {
    const doc = await deps.db.chatInstallations.findOne({ _id: id });
    return doc ? (JSON.parse(deps.secrets.open(doc.sealed)) as unknown) : undefined;
  },
  async remove(deps: CoreDeps, id: string): Promise<void> {
    await deps.db.chatInstallations.deleteOne({ _id: id });
  },
};
