/**
 * @module
 * Texts of the built-in queue page, per language, chosen by `Accept-Language` or the room's default.
 * The texts live in `./messages/<language>.ts`; this module is the one the rest of the code imports.
 */
export {
  chooseLanguage,
  CLOUDFLARE_LANGUAGES,
  LANGUAGES,
  MESSAGES,
  messagesFor,
  TEMPLATE_LANGUAGES,
  templateLanguageOf,
  type Language,
  type Messages,
} from './messages/index.ts'
