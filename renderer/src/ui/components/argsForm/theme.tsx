/**
 * The generated argument form in the app's own look: rjsf's core widgets (their inputs are styled
 * in tools.css under `.tool-form`), with the field, object and array layouts and every button
 * replaced by templates that use the app's classes and icons. There is no submit button: the
 * call panel's Run button runs the call (Enter in a field submits the form, which runs it too).
 */
import { countOf } from '../../../lib/plural.js';
import type {
  ArrayFieldItemTemplateProps,
  ArrayFieldTemplateProps,
  BaseInputTemplateProps,
  DescriptionFieldProps,
  FieldErrorProps,
  FieldTemplateProps,
  IconButtonProps,
  ObjectFieldTemplateProps,
  TemplatesType,
  TitleFieldProps,
} from '@rjsf/utils';
// Deep import: @rjsf/core's index also re-exports getTestRegistry, which imports the ajv8 validator
// (a package this app does not ship: it compiles schemas with `new Function`, refused by the CSP).
import getDefaultRegistry from '@rjsf/core/lib/getDefaultRegistry.js';
import { buttonId, canExpand, descriptionId, errorId, getUiOptions, titleId } from '@rjsf/utils';
import type { IconName } from '../Icon.js';
import { Icon } from '../Icon.js';

/** rjsf's own templates this theme keeps (resolved once, not per render). */
const CORE = getDefaultRegistry().templates;
const WrapIfAdditionalTemplate = CORE.WrapIfAdditionalTemplate;
const ArrayFieldItemButtonsTemplate = CORE.ArrayFieldItemButtonsTemplate;
const CoreBaseInputTemplate = CORE.BaseInputTemplate;

/** The validator's word for the value at the start of its messages ("String does not match …"). */
const VALUE_WORD = /^(?:Value|Instance|String|Number|Integer|Array|Boolean|Object) /;

/**
 * A field's error as a whole sentence naming the field, from main's fragments: "is required" →
 * "Email is required.", "String does not match format …" → "Email does not match format …",
 * "0 is less than 1." → "Count: 0 is less than 1.".
 */
export function errorSentence(label: string, message: string): string {
  const text = message.trim();
  const named = VALUE_WORD.test(text)
    ? text.replace(VALUE_WORD, `${label} `)
    : /^[a-z]/.test(text)
      ? `${label} ${text}`
      : `${label}: ${text}`;
  const sentence = named.charAt(0).toUpperCase() + named.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** Errors at their field, as sentences; the input points at them (aria-describedby, set by rjsf). */
function FieldErrorTemplate({ errors = [], fieldPathId, schema }: FieldErrorProps) {
  const messages = errors.filter((error): error is string => typeof error === 'string' && error.length > 0);
  if (messages.length === 0) return null;
  const last = fieldPathId.path.at(-1);
  const label =
    typeof schema.title === 'string' && schema.title ? schema.title : typeof last === 'string' ? last : 'This value';
  return (
    <ul id={errorId(fieldPathId)} className="rjsf-field-error field-error">
      {messages.map((message, index) => (
        <li key={index}>{errorSentence(label, message)}</li>
      ))}
    </ul>
  );
}

/** rjsf's input, marked `aria-invalid` while its field has an error. */
function BaseInputTemplate(props: BaseInputTemplateProps) {
  const invalid = (props.rawErrors?.length ?? 0) > 0;
  return <CoreBaseInputTemplate {...props} {...(invalid ? { 'aria-invalid': true } : {})} />;
}

function FieldTemplate(props: FieldTemplateProps) {
  const { id, label, children, errors, help, description, hidden, required, displayLabel, schema, fieldPathId } = props;
  if (hidden) return <div className="visually-hidden">{children}</div>;
  // Booleans render their own label beside the box; objects and arrays title themselves.
  const type = schema.type;
  const ownLabel = type === 'boolean' || type === 'object' || type === 'array';
  // Items of an array are numbered by their place; "argv-2 required" above each would be noise.
  const arrayItem = typeof fieldPathId.path.at(-1) === 'number';
  return (
    <WrapIfAdditionalTemplate {...props}>
      <div className="rf-field">
        {arrayItem && !ownLabel && label && (
          <label className="visually-hidden" htmlFor={id}>
            {label}
          </label>
        )}
        {displayLabel && !arrayItem && !ownLabel && label && (
          <label className="field-label rf-label" htmlFor={id}>
            {label}
            {required && <span className="schema-required">required</span>}
          </label>
        )}
        {displayLabel && !arrayItem && !ownLabel && description}
        {children}
        {errors}
        {help}
      </div>
    </WrapIfAdditionalTemplate>
  );
}

function DescriptionFieldTemplate({ id, description }: DescriptionFieldProps) {
  if (!description) return null;
  return (
    <div id={id} className="field-hint rf-description">
      {description}
    </div>
  );
}

function TitleFieldTemplate({ id, title, required }: TitleFieldProps) {
  return (
    <legend id={id} className="rf-legend">
      {title}
      {required && <span className="schema-required">required</span>}
    </legend>
  );
}

function ObjectFieldTemplate(props: ObjectFieldTemplateProps) {
  const {
    description,
    disabled,
    formData,
    fieldPathId,
    onAddProperty,
    optionalDataControl,
    properties,
    readonly,
    registry,
    required,
    schema,
    title,
    uiSchema,
  } = props;
  if ((schema.oneOf || schema.anyOf) && !schema.properties && properties.length === 0) return null;
  // The root object is the form itself: no frame, no title (the panel names the tool).
  const root = fieldPathId.path.length === 0;
  return (
    <fieldset className={root ? 'rf-object rf-root' : 'rf-object rf-nested'} id={fieldPathId.$id}>
      {!root && title && (
        <TitleFieldTemplate
          id={titleId(fieldPathId)}
          title={title}
          required={required}
          schema={schema}
          uiSchema={uiSchema}
          registry={registry}
        />
      )}
      {!root && description && (
        <DescriptionFieldTemplate
          id={descriptionId(fieldPathId)}
          description={description}
          schema={schema}
          uiSchema={uiSchema}
          registry={registry}
        />
      )}
      {optionalDataControl}
      {properties.map((prop) => prop.content)}
      {canExpand(schema, uiSchema, formData) && (
        <AddButton
          id={buttonId(fieldPathId, 'add')}
          className="rjsf-object-property-expand"
          onClick={onAddProperty}
          disabled={disabled || readonly}
          uiSchema={uiSchema}
          registry={registry}
        />
      )}
    </fieldset>
  );
}

function ArrayFieldTemplate(props: ArrayFieldTemplateProps) {
  const {
    canAdd,
    disabled,
    fieldPathId,
    uiSchema,
    items,
    optionalDataControl,
    onAddClick,
    readonly,
    registry,
    required,
    schema,
    title,
  } = props;
  const options = getUiOptions(uiSchema);
  const description = options.description || schema.description;
  return (
    <fieldset className="rf-array" id={fieldPathId.$id}>
      <legend id={titleId(fieldPathId)} className="rf-legend">
        {options.title || title}
        {required && <span className="schema-required">required</span>}
        <span className="rf-count">{countOf(items.length, 'item', 'items')}</span>
      </legend>
      {description && (
        <DescriptionFieldTemplate
          id={descriptionId(fieldPathId)}
          description={description}
          schema={schema}
          uiSchema={uiSchema}
          registry={registry}
        />
      )}
      {optionalDataControl}
      {items.length > 0 && <div className="rf-array-items">{items}</div>}
      {canAdd && (
        <AddButton
          id={buttonId(fieldPathId, 'add')}
          className="rjsf-array-item-add"
          onClick={onAddClick}
          disabled={disabled || readonly}
          uiSchema={uiSchema}
          registry={registry}
        />
      )}
    </fieldset>
  );
}

function ArrayFieldItemTemplate(props: ArrayFieldItemTemplateProps) {
  const { children, buttonsProps, hasToolbar } = props;
  return (
    <div className="rf-array-item">
      <span className="rf-array-index" aria-hidden="true">
        {buttonsProps.index + 1}
      </span>
      <div className="rf-array-item-body">{children}</div>
      {hasToolbar && (
        <div className="rf-array-item-tools" role="group" aria-label={`Item ${buttonsProps.index + 1}`}>
          <ArrayFieldItemButtonsTemplate {...buttonsProps} />
        </div>
      )}
    </div>
  );
}

function iconButton(icon: IconName, label: string, danger = false) {
  return function ThemedIconButton({
    registry: _registry,
    uiSchema: _uiSchema,
    iconType: _iconType,
    icon: _icon,
    className,
    title,
    style: _style,
    ...rest
  }: IconButtonProps) {
    const name = title ?? label;
    return (
      <button
        type="button"
        {...rest}
        className={`btn btn-icon btn-ghost ${danger ? 'btn-danger-ghost' : ''} ${className ?? ''}`}
        title={name}
        aria-label={name}
      >
        <Icon name={icon} size={14} />
      </button>
    );
  };
}

function AddButton({
  registry: _registry,
  uiSchema: _uiSchema,
  iconType: _iconType,
  icon: _icon,
  className,
  style: _style,
  ...rest
}: IconButtonProps) {
  return (
    <button type="button" {...rest} className={`btn btn-small rf-add ${className ?? ''}`}>
      <Icon name="plus" size={14} />
      {className?.includes('expand') ? 'Add field' : 'Add item'}
    </button>
  );
}

export const FORM_TEMPLATES: Partial<Omit<TemplatesType, 'ButtonTemplates'>> & {
  ButtonTemplates: Partial<TemplatesType['ButtonTemplates']>;
} = {
  FieldTemplate,
  FieldErrorTemplate,
  BaseInputTemplate,
  DescriptionFieldTemplate,
  TitleFieldTemplate,
  ObjectFieldTemplate,
  ArrayFieldTemplate,
  ArrayFieldItemTemplate,
  ButtonTemplates: {
    SubmitButton: () => null,
    AddButton,
    MoveUpButton: iconButton('up', 'Move up'),
    MoveDownButton: iconButton('down', 'Move down'),
    CopyButton: iconButton('plus', 'Copy'),
    RemoveButton: iconButton('trash', 'Remove', true),
    ClearButton: iconButton('close', 'Clear'),
  },
};
