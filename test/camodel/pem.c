/* libpem_davinci.so of the stand-in: CANN's simulator exports
 * DvcSetLogLevel and DvcAttachLogCallback from this library; here they come
 * from libruntime_camodel.so, which this library depends on, so dlsym on a
 * handle of this library finds them. */
typedef int camodel_pem_translation_unit_is_not_empty;
