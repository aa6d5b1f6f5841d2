/** The shared UI kit: layout, notifications, alerts, modal, confirm, paginated table, fields, states. */
export { Layout, type LayoutProps, type LayoutUser } from './Layout.js';
export { Notifications, notify, useNotify, type Notifier, type NotifyType } from './notify.js';
export { AlertArea, pageAlerts, useAlertArea, type AlertVariant, type PageAlert } from './alerts.js';
export { AppModal, type AppModalProps } from './AppModal.js';
export { ConfirmButton, type ConfirmButtonProps, type ConfirmChoice } from './ConfirmButton.js';
export { PaginatedTable, Pager, usePageParam, useQueryParam, type Column, type PaginatedTableProps, type PagerProps } from './pagination.js';
export {
  DateInput, isDayText, SelectField, SwitchField, TextField, useFieldErrors, validate,
  type DateInputProps, type FieldErrors, type SelectFieldProps, type SelectOption, type SwitchFieldProps, type TextFieldProps,
} from './fields.js';
export { EmptyState, ErrorAlert, Loading } from './states.js';
export { PageTitle, useDocumentTitle } from './PageTitle.js';
export { useAction } from './useAction.js';
export { UNSAVED_MESSAGE, useUnsavedPrompt, type UnsavedPrompt, type UnsavedPromptOptions } from './useUnsavedPrompt.js';
export { MOBILE_QUERY, useIsMobile, useMediaQuery } from './media.js';
export { APP_NAME, APP_SHORT } from './brand.js';
export { fmtDateTime, fmtNumber, fmtSize, plural } from './format.js';
export { RichText, type RichTextProps } from './RichText.js';
export { SortableList, type SortableListProps } from './SortableList.js';
export { IMAGE_EDITOR_ASPECTS, IMAGE_EDITOR_MAX_SIDE, IMAGE_EDITOR_ROTATIONS, IMAGE_EDITOR_ZOOM, ImageEditor, type ImageEditorProps } from './ImageEditor.js';
