import type { CoreDeps, Scope } from '../context.js';
import type { PostingSchemaBody } from '../providers/contract.js';
import { findWorkspacePlatform } from './find-platform.js';

/**
 * The live posting schema of one of the workspace's accounts, as its provider states it now. An account that
 * cannot post answers 409 `conflict` with what to do; another workspace's id is 404 like an unknown one.
 */
export async function getPostingSchema(deps: CoreDeps, scope: Scope, platformId: string): Promise<PostingSchemaBody> {
  const platform = await findWorkspacePlatform(deps, scope, platformId);
  return deps.providers.of(platform).rules.postingSchema(deps, platform);
}
