import type { DomainEvent } from '../../events/documents.js';
import type { Actor } from '../../actor.js';
import type { SpendDoc } from '../../db/primitive-documents.js';
import type { CaptionSize, TextEffect, TextStyleId } from '../render/index.js';
import type { SlideLength } from '../slide-length.js';
import type { Warning } from '../composite-schema.js';
import type { HookExamples } from '../hook-examples-schema.js';
import type { NetworkPlatforms } from '../network-platforms.js';

// Stored documents of slideshow generation. Ids are UUID strings kept in `_id`.

export type GenerationStatus = 'WAITING' | 'PROCESSING' | 'DONE' | 'FAILED';

/** Where a job is (beyond the spec's status): stages only move forward. */
export type GenerationStage = 'queued' | 'writing_captions' | 'generating_images' | 'creating_post' | 'done' | 'failed';

/** One slide of a job: its text, and what the job has made of it so far (kept for a resumed run). */
export interface GenerationSlideDoc {
  index: number;
  caption: string;
  imagePrompt: string;
  /** The raw AI image (media source `generated`), once drawn and stored. */
  generatedMediaId: string | null;
  /** The image credit paid for it (ledger ref `<jobId>#<index>`). */
  imageSpend: SpendDoc | null;
  /** The slide with its caption baked on (media source `composite`). */
  compositeMediaId: string | null;
  warnings: Warning[];
  /**
   * The slide in the frames of the job's other networks (`request.networks` after the first), recorded with
   * `compositeMediaId`, which is the first network's. Absent on single-network and older jobs.
   */
  networkComposites?: NetworkComposite[];
}

/** A slide drawn in one more network's frame. */
export interface NetworkComposite {
  provider: string;
  mediaId: string;
  warnings: Warning[];
}

/** What the request asked for, defaults applied (the job runs on this alone). */
export interface GenerationRequestDoc {
  platformIds: string[];
  topic: string | null;
  slideCount: number;
  language: string;
  slideLength: SlideLength;
  content: string | null;
  mode: 'now' | 'schedule' | 'draft';
  scheduledFor: string | null;
  textStyleId: TextStyleId;
  captionSize: CaptionSize;
  textEffect: TextEffect;
  settings: Record<string, unknown>;
  /**
   * The networks the slides are drawn for, each with its platforms, in the order `platformIds` first names
   * them (found when the job was accepted). Absent on older jobs: one network, slides in the image's shape.
   */
  networks?: NetworkPlatforms[];
  /** Whether the captions learn from the workspace's top hooks (topic path; false on the slides path). Absent on older jobs. */
  useTopHooks?: boolean;
}

/** A slideshow generation job: the request, its progress and outcome, resumable after a crash. */
export interface GenerationJobDoc {
  _id: string;
  workspaceId: string;
  accountId: string;
  /** Who asked: the post is created in their name. */
  actor: Actor;
  status: GenerationStatus;
  stage: GenerationStage;
  request: GenerationRequestDoc;
  /** The caption credit of the topic path, spent when the job was submitted. */
  captionSpend: SpendDoc | null;
  /**
   * The image credits reserved when the job was accepted, one per slide in slide order (ledger ref
   * `<jobId>#<index>`); a slide's becomes its `imageSpend` once drawn, and a failed job gives back
   * those of slides never drawn. Absent on jobs accepted before reservations, which pay per slide.
   */
  imageReservation?: SpendDoc[];
  /**
   * The top hooks chosen for the caption prompt when the job was accepted (topic path), so a resumed
   * run shows the model the same ones; null on the slides path and on older jobs.
   */
  hookExamples?: HookExamples | null;
  /** The generated overall caption (topic path), once written. */
  generatedCaption: string | null;
  /** Empty until the captions exist (topic path) or from the start (slides path). */
  slides: GenerationSlideDoc[];
  total: number;
  completed: number;
  postGroupId: string | null;
  postGroupIds: string[];
  error: string | null;
  errorCode: string | null;
  /** The slide whose failure ended the job. */
  failedSlideIndex: number | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  /** Its events (done or failed), written with the change they describe (src/core/events). */
  events?: DomainEvent[];
}
