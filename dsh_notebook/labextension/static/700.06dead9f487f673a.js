"use strict";(self.rspackChunkdsh_notebook=self.rspackChunkdsh_notebook||[]).push([[700],{646(e,t,r){var n=r(601),o=r.n(n),a=r(314),i=(r.n(a))()(o());i.push([e.id,`/* dsh-notebook: the waiting signal (toolbar / status-bar button, tab badge). */
.dsh-waiting {
  border: 1px solid var(--jp-warn-color1, #f57c00);
  border-radius: 10px;
  background: var(--jp-warn-color3, #ffe0b2);
  color: var(--jp-ui-font-color0, #000);
  font-size: var(--jp-ui-font-size1, 13px);
  line-height: 18px;
  padding: 0 8px;
  margin: 2px 4px;
  cursor: pointer;
}

.dsh-waiting.lm-mod-hidden {
  display: none;
}

.dsh-waiting-status {
  margin: 0 4px;
  line-height: 16px;
}

/* the tab badge: the count sits between the label and the close icon */
.lm-TabBar-tab.dsh-mod-waiting[data-dsh-waiting]::after {
  content: attr(data-dsh-waiting);
  order: 1;
  align-self: center;
  min-width: 14px;
  margin-left: 4px;
  padding: 0 4px;
  border-radius: 7px;
  background: var(--jp-warn-color1, #f57c00);
  color: var(--jp-ui-inverse-font-color0, #fff);
  font-size: 10px;
  line-height: 14px;
  text-align: center;
}

.lm-TabBar-tab.dsh-mod-waiting .lm-TabBar-tabCloseIcon {
  order: 2;
}

/* dsh-notebook: Insert below / Copy on a settled transcript's Python code, Ask dsh on errors */
.dsh-nb-btn {
  border: 1px solid var(--jp-border-color1, #bdbdbd);
  border-radius: 3px;
  background: var(--jp-layout-color1, #fff);
  color: var(--jp-ui-font-color1, #333);
  font-size: var(--jp-ui-font-size0, 11px);
  line-height: 16px;
  padding: 0 6px;
  cursor: pointer;
}

.dsh-nb-btn:hover {
  border-color: var(--jp-brand-color1, #1976d2);
}

.dsh-nb-code-bar {
  display: flex;
  justify-content: flex-end;
  gap: 4px;
  margin: 2px 0;
}

.dsh-nb-ask {
  align-self: flex-start;
  flex: none;
  margin: 4px;
}
`,""]),r.d(t,{},{A:i})},314(e){e.exports=function(e){var t=[];return t.toString=function(){return this.map(function(t){var r="",n=void 0!==t[5];return t[4]&&(r+="@supports (".concat(t[4],") {")),t[2]&&(r+="@media ".concat(t[2]," {")),n&&(r+="@layer".concat(t[5].length>0?" ".concat(t[5]):""," {")),r+=e(t),n&&(r+="}"),t[2]&&(r+="}"),t[4]&&(r+="}"),r}).join("")},t.i=function(e,r,n,o,a){"string"==typeof e&&(e=[[null,e,void 0]]);var i={};if(n)for(var s=0;s<this.length;s++){var c=this[s][0];null!=c&&(i[c]=!0)}for(var d=0;d<e.length;d++){var p=[].concat(e[d]);n&&i[p[0]]||(void 0!==a&&(void 0===p[5]||(p[1]="@layer".concat(p[5].length>0?" ".concat(p[5]):""," {").concat(p[1],"}")),p[5]=a),r&&(p[2]&&(p[1]="@media ".concat(p[2]," {").concat(p[1],"}")),p[2]=r),o&&(p[4]?(p[1]="@supports (".concat(p[4],") {").concat(p[1],"}"),p[4]=o):p[4]="".concat(o)),t.push(p))}},t}},601(e){e.exports=function(e){return e[1]}},72(e){var t=[];function r(e){for(var r=-1,n=0;n<t.length;n++)if(t[n].identifier===e){r=n;break}return r}function n(e,n){for(var o={},a=[],i=0;i<e.length;i++){var s=e[i],c=n.base?s[0]+n.base:s[0],d=o[c]||0,p="".concat(c," ").concat(d);o[c]=d+1;var l=r(p),u={css:s[1],media:s[2],sourceMap:s[3],supports:s[4],layer:s[5]};if(-1!==l)t[l].references++,t[l].updater(u);else{var f=function(e,t){var r=t.domAPI(t);return r.update(e),function(t){t?(t.css!==e.css||t.media!==e.media||t.sourceMap!==e.sourceMap||t.supports!==e.supports||t.layer!==e.layer)&&r.update(e=t):r.remove()}}(u,n);n.byIndex=i,t.splice(i,0,{identifier:p,updater:f,references:1})}a.push(p)}return a}e.exports=function(e,o){var a=n(e=e||[],o=o||{});return function(e){e=e||[];for(var i=0;i<a.length;i++){var s=r(a[i]);t[s].references--}for(var c=n(e,o),d=0;d<a.length;d++){var p=r(a[d]);0===t[p].references&&(t[p].updater(),t.splice(p,1))}a=c}}},659(e){var t={};e.exports=function(e,r){var n=function(e){if(void 0===t[e]){var r=document.querySelector(e);if(window.HTMLIFrameElement&&r instanceof window.HTMLIFrameElement)try{r=r.contentDocument.head}catch(e){r=null}t[e]=r}return t[e]}(e);if(!n)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");n.appendChild(r)}},540(e){e.exports=function(e){var t=document.createElement("style");return e.setAttributes(t,e.attributes),e.insert(t,e.options),t}},56(e,t,r){e.exports=function(e){var t=r.nc;t&&e.setAttribute("nonce",t)}},825(e){e.exports=function(e){if("u"<typeof document)return{update:function(){},remove:function(){}};var t=e.insertStyleElement(e);return{update:function(r){var n,o,a;n="",r.supports&&(n+="@supports (".concat(r.supports,") {")),r.media&&(n+="@media ".concat(r.media," {")),(o=void 0!==r.layer)&&(n+="@layer".concat(r.layer.length>0?" ".concat(r.layer):""," {")),n+=r.css,o&&(n+="}"),r.media&&(n+="}"),r.supports&&(n+="}"),(a=r.sourceMap)&&"u">typeof btoa&&(n+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(a))))," */")),e.styleTagTransform(n,t,e.options)},remove:function(){var e;null===(e=t).parentNode||e.parentNode.removeChild(e)}}}},113(e){e.exports=function(e,t){if(t.styleSheet)t.styleSheet.cssText=e;else{for(;t.firstChild;)t.removeChild(t.firstChild);t.appendChild(document.createTextNode(e))}}},959(e,t,r){var n=r(72),o=r.n(n),a=r(825),i=r.n(a),s=r(659),c=r.n(s),d=r(56),p=r.n(d),l=r(540),u=r.n(l),f=r(113),h=r.n(f),b=r(646),v={};v.styleTagTransform=h(),v.setAttributes=p(),v.insert=c().bind(null,"head"),v.domAPI=i(),v.insertStyleElement=u(),o()(b.A,v),b.A&&b.A.locals&&b.A.locals}}]);