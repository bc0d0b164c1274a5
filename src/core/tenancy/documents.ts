// Stored documents of accounts and workspaces. Ids are UUID strings kept in `_id`.

/** AI settings of a workspace (spec 1.5): applied automatically, never sent in a request. */
export interface AiSettings {
  systemPrompt: string;
  knowledgeBase: string;
  defaultLanguage: string;
  defaultSlideLength: 'short' | 'medium' | 'long';
  defaultTextStyle: 'primary-sans' | 'anton' | 'montserrat' | 'poppins' | 'league-spartan';
  defaultCaptionSize: 'small' | 'medium' | 'large';
  /** Whether captions learn from the workspace's top hooks when a request does not say. */
  defaultUseTopHooks: boolean;
}

/** The owner of workspaces; holds the plan and therefore the credit pools. */
export interface AccountDoc {
  _id: string;
  name: string;
  plan: string;
  createdAt: Date;
}

/** The spec's organization: the unit every resource and API key is scoped to. */
export interface WorkspaceDoc {
  _id: string;
  accountId: string;
  name: string;
  ai: AiSettings;
  createdAt: Date;
  updatedAt: Date;
}
