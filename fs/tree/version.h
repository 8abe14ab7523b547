/* SPDX-License-Identifier: MIT */
#ifndef FS_VERSION_H
#define FS_VERSION_H
#define MHFU_VERSION "0.1.0"
#endif
